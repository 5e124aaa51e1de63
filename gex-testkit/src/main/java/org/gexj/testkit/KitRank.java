package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.JobExitException;
import org.gexj.launch.InProcessJob;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * One rank of a kit job started by gexrun or mpirun ({@link ConduitKit.Launch}): {@code KitRank KIT-CLASS METHOD JOB}.
 * It runs the kit's test method again in this process, and of the jobs the method starts it runs only the
 * {@code JOB}th (from 0), as this rank, then exits: 0 when the rank's part passed, 1 with the failure printed. The jobs
 * before it end at once as they ended in the driver: passed, or failed with the driver's failure. Property tests draw
 * the same examples here as in the driver, from the seed the driver passes.
 */
public final class KitRank {
    static final String SIGNALS = "GEX_KIT_SIGNALS";
    static final String SEED = "GEX_KIT_SEED";
    /** The hosts' addresses, comma-separated, where the ranks are placed round robin ({@link KitHosts#addresses()}). */
    static final String HOSTS = "GEX_KIT_HOSTS";
    /** The launcher the driver ran ({@link ConduitKit.Launch} name), whose bootstrap the rank checks it joined by. */
    static final String LAUNCHER = "GEX_KIT_LAUNCHER";

    /** The job of the test method this process runs, or -1 in the driver or a job of threads. */
    private static int target = -1;
    private static int started;

    private KitRank() {
    }

    static boolean active() {
        return target >= 0;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: KitRank KIT-CLASS METHOD JOB");
            System.exit(2);
        }
        final Class<?> kitClass = Class.forName(args[0]);
        final Method method = find(kitClass, args[1]);
        target = Integer.parseInt(args[2]);
        final var constructor = kitClass.getDeclaredConstructor();
        constructor.setAccessible(true);
        final Object kit = constructor.newInstance();
        method.setAccessible(true);
        try {
            method.invoke(kit);
        } catch (InvocationTargetException e) {
            System.err.println("kit rank " + rankName() + ": " + kitClass.getSimpleName() + "."
                + args[1] + " failed before its job " + target + " started:");
            e.getCause().printStackTrace();
            System.exit(1);
        }
        System.err.println("kit rank " + rankName() + ": " + kitClass.getSimpleName() + "." + args[1]
            + " started only " + started + " job(s), not job " + target);
        System.exit(1);
    }

    /** In a rank process: runs {@code body} as this rank if this is the job to run, then exits the process. */
    static void job(int ranks, InProcessJob.RankBody body) {
        final int job = started++;
        if (job < target) {
            final AssertionError failed = ProcessKitJob.replay(Path.of(System.getenv(SIGNALS)), job);
            if (failed != null) {
                throw failed;
            }
            return;
        }
        Client client = null;
        try {
            client = Gex.init("TEST");
            if (client.size() != ranks) {
                throw new IllegalStateException("the test's job " + target + " has " + ranks + " ranks, the launcher"
                    + " started " + client.size());
            }
            checkLauncher(client.rank());
            checkHost(client.rank());
            body.run(client);
            client.close();
        } catch (JobExitException e) {
            if (e.code() != 0) {
                fail("ended by exit(" + e.code() + ") of rank " + e.rank(), e);
            }
        } catch (Throwable t) {
            report("failed", t); // first: a conduit may crash while the abort closes it
            if (client != null) {
                client.abort(t.toString());
            }
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }

    /**
     * The rank joined its job through its launcher's bootstrap, with the rank that launcher gave it: gexrun's
     * rendezvous ({@code GEX_RANK}), or mpirun's PMIx server ({@code PMIX_RANK}, and no {@code GEX_RANK}), so a kit
     * said to run under mpirun cannot pass on another bootstrap.
     */
    private static void checkLauncher(int rank) {
        final String launcher = System.getenv(LAUNCHER);
        final String gexRank = System.getenv("GEX_RANK");
        final String pmixRank = System.getenv("PMIX_RANK");
        final boolean ok = ConduitKit.Launch.MPIRUN.name().equals(launcher)
            ? gexRank == null && Integer.toString(rank).equals(pmixRank) && System.getenv("PMIX_NAMESPACE") != null
            : Integer.toString(rank).equals(gexRank);
        if (!ok) {
            throw new IllegalStateException("rank " + rank + " of a kit job started by " + launcher + " has GEX_RANK="
                + gexRank + " and PMIX_RANK=" + pmixRank + ": it did not join through that launcher's bootstrap");
        }
    }

    /**
     * With hosts ({@link #HOSTS}): this rank runs on host {@code rank % hosts}, where that host's address is local;
     * else the launcher put it elsewhere and the job would not cross the hosts it claims to.
     */
    private static void checkHost(int rank) throws java.io.IOException {
        final String hosts = System.getenv(HOSTS);
        if (hosts == null || hosts.isEmpty()) {
            return;
        }
        final String[] addresses = hosts.split(",");
        final String expected = addresses[rank % addresses.length];
        if (java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getByName(expected)) == null) {
            throw new IllegalStateException("rank " + rank + " should run on host " + expected + " (rank % "
                + addresses.length + " of " + hosts + "), but that address is not local here");
        }
    }

    /** This rank as its launcher numbers it: gexrun's GEX_RANK, or PMIX_RANK under mpirun. */
    private static String rankName() {
        final String gexrun = System.getenv("GEX_RANK");
        return gexrun != null ? gexrun : System.getenv("PMIX_RANK");
    }

    static KitSignals signals() {
        return KitSignals.inDirectory(Path.of(System.getenv(SIGNALS)));
    }

    static long seed() {
        return Long.parseLong(System.getenv(SEED));
    }

    private static void fail(String what, Throwable t) {
        report(what, t);
        System.exit(1);
    }

    private static void report(String what, Throwable t) {
        System.err.println("kit rank " + rankName() + " " + what + (t == null ? "" : ": " + t));
        if (t != null) {
            t.printStackTrace();
        }
        System.err.flush();
    }

    private static Method find(Class<?> kitClass, String name) throws NoSuchMethodException {
        for (Class<?> c = kitClass; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 0) {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(kitClass.getName() + "." + name + "()");
    }
}
