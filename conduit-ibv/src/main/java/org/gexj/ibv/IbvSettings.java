package org.gexj.ibv;

import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which device and port the ibv conduit uses: {@code GEX_IBV_DEVICE} (a device name, as {@code ibv_devices} lists
 * them) and {@code GEX_IBV_PORT} (1..255). Unset, the first ACTIVE port of the first device that has one.
 *
 * @param device the name asked for, or empty
 * @param port   the port asked for, or 0
 */
public record IbvSettings(Optional<String> device, int port) {
    public static final String DEVICE = "GEX_IBV_DEVICE";
    public static final String PORT = "GEX_IBV_PORT";

    /** The device and port of a job. */
    public record Choice(String device, int port, int linkLayer) {
    }

    /**
     * Reads the two variables of {@code env}.
     *
     * @throws IllegalArgumentException naming the variable, its value and the allowed range, for a malformed value
     */
    public static IbvSettings from(Map<String, String> env) {
        final String name = env.get(DEVICE);
        if (name != null && name.isBlank()) {
            throw new IllegalArgumentException(DEVICE + "='" + name + "' is blank: name a device (ibv_devices lists"
                + " them) or leave it unset for the first ACTIVE port");
        }
        final String portText = env.get(PORT);
        int port = 0;
        if (portText != null) {
            try {
                port = Integer.parseInt(portText.trim());
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 255) {
                throw new IllegalArgumentException(PORT + "=" + portText + " is not a port number: 1..255 (verbs"
                    + " numbers ports from 1), or leave it unset for the first ACTIVE port");
            }
        }
        return new IbvSettings(Optional.ofNullable(name).map(String::trim), port);
    }

    /**
     * The device and port to use among {@code inventory}'s.
     *
     * @throws IllegalStateException    if the host has no device, or no ACTIVE port where one is looked for
     * @throws IllegalArgumentException if {@code GEX_IBV_DEVICE} or {@code GEX_IBV_PORT} names what does not exist or
     *                                  a port that is not ACTIVE; the message names the value and what exists
     */
    public Choice choose(IbvInventory inventory) {
        if (inventory.devices().isEmpty()) {
            throw new IllegalStateException(Ibv.NO_DEVICE);
        }
        if (device.isPresent()) {
            final IbvInventory.Device d = inventory.devices().stream().filter(x -> x.name().equals(device.get()))
                .findFirst().orElseThrow(() -> new IllegalArgumentException(DEVICE + "=" + device.get()
                    + ": no such RDMA device; the devices here: " + names(inventory)));
            return choose(d);
        }
        if (port != 0) {
            // a port without a device: the first device that has it ACTIVE, else say what each has
            for (IbvInventory.Device d : inventory.devices()) {
                if (d.ports().stream().anyMatch(p -> p.number() == port && p.active())) {
                    return choose(d);
                }
            }
            throw new IllegalArgumentException(PORT + "=" + port + ": no device has port " + port + " ACTIVE; the"
                + " ports here: " + ports(inventory));
        }
        for (IbvInventory.Device d : inventory.devices()) {
            for (IbvInventory.Port p : d.ports()) {
                if (p.active()) {
                    return new Choice(d.name(), p.number(), p.linkLayer());
                }
            }
        }
        throw new IllegalStateException(inventory.devices().size() == 1
            ? "no ACTIVE port on " + inventory.devices().get(0).name() + " (" + ports(inventory) + ")"
            : "no ACTIVE port on any RDMA device (" + ports(inventory) + ")");
    }

    private Choice choose(IbvInventory.Device d) {
        if (port == 0) {
            return d.ports().stream().filter(IbvInventory.Port::active).findFirst()
                .map(p -> new Choice(d.name(), p.number(), p.linkLayer()))
                .orElseThrow(() -> new IllegalStateException("no ACTIVE port on " + d.name() + " (" + ports(d) + ")"));
        }
        final IbvInventory.Port p = d.ports().stream().filter(x -> x.number() == port).findFirst()
            .orElseThrow(() -> new IllegalArgumentException(PORT + "=" + port + ": " + d.name() + " has "
                + (d.ports().isEmpty() ? "no ports" : "ports 1.." + d.ports().size())));
        if (!p.active()) {
            throw new IllegalArgumentException(PORT + "=" + port + ": port " + port + " of " + d.name() + " is "
                + p.stateName() + ", not ACTIVE (" + ports(d) + ")");
        }
        return new Choice(d.name(), p.number(), p.linkLayer());
    }

    private static String names(IbvInventory inventory) {
        return inventory.devices().stream().map(IbvInventory.Device::name).collect(Collectors.joining(", "));
    }

    private static String ports(IbvInventory inventory) {
        return inventory.devices().stream().map(IbvSettings::ports).collect(Collectors.joining("; "));
    }

    private static String ports(IbvInventory.Device d) {
        return d.ports().isEmpty() ? d.name() + ": no ports" : d.ports().stream()
            .map(p -> d.name() + " port " + p.number() + " " + p.stateName()).collect(Collectors.joining(", "));
    }
}
