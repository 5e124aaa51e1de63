package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Config;
import org.gexj.Gex;
import org.gexj.bootstrap.JobSecret;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A rank program for the ssh spawner's secrecy test: joins the job, says "ready RANK PID" and "secret RANK HEX" (the
 * secret it proved to the rendezvous), then polls until the file {@code args[0]} exists (at most 60 s), and leaves the
 * job normally. Meanwhile the test looks for the secret in every process's command line and environment.
 */
public final class SecretProbe {
    private SecretProbe() {
    }

    public static void main(String[] args) throws Exception {
        final Path stop = Path.of(args[0]);
        try (Client client = Gex.init("SECRETPROBE")) {
            client.barrier();
            System.out.println("ready " + client.rank() + " " + ProcessHandle.current().pid());
            System.out.println("secret " + client.rank() + " "
                + JobSecret.resolve(Config.fromEnvironment()).get("GEX_JOB_SECRET", "none"));
            System.out.flush();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(stop) && System.nanoTime() < deadline) {
                client.poll();
                Thread.sleep(10);
            }
            client.barrier();
        }
    }
}
