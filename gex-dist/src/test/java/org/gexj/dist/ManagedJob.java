package org.gexj.dist;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Starts a job through a resource manager's launcher from the repository root, as a user of a cluster would:
 * {@code mpirun -np N bin/gexrank ...} (Open MPI 4.1, Debian's openmpi-bin) or {@code srun --mpi=pmix -n N bin/gexrank
 * ...} (Slurm 22.05, slurm-wlm, on the one-node cluster of tools/slurm/single-node.sh), capturing its output line by
 * line. GEX/J's ranks use only the launcher's PMIx server, never MPI.
 */
final class ManagedJob {
    static final java.nio.file.Path GEXRANK = Jobs.ROOT.resolve("bin/gexrank");
    /**
     * What this container needs: {@code --oversubscribe} (2 cores, up to 8 ranks); as root, Open MPI refuses to run
     * without the two OMPI_ALLOW_RUN_AS_ROOT variables.
     */
    static final List<String> OPTIONS = List.of("--oversubscribe");

    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();

    private ManagedJob(Process process) {
        this.process = process;
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "mpirun-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code mpirun --oversubscribe -np ranks bin/gexrank args...} with {@code env} added to the environment. */
    static ManagedJob mpirun(int ranks, Map<String, String> env, String... args) throws IOException {
        final List<String> command = new ArrayList<>(List.of("mpirun"));
        command.addAll(OPTIONS);
        command.addAll(List.of("-np", Integer.toString(ranks), GEXRANK.toString()));
        command.addAll(List.of(args));
        final Map<String, String> all = new HashMap<>(MPIRUN_ENVIRONMENT);
        all.putAll(env);
        return start(command, all);
    }

    /**
     * PMIx's munge security component, when munged is not answering but its socket file remains (as after
     * tools/slurm/single-node.sh here), retries the socket for 2.25 s before it falls back to native security: native
     * from the start, which is what a job on one user's hosts uses.
     */
    private static final Map<String, String> MPIRUN_ENVIRONMENT = Map.of("PMIX_MCA_psec", "native");

    /** {@code srun --mpi=pmix -n ranks bin/gexrank args...} with {@code env} added to the environment. */
    static ManagedJob srun(int ranks, Map<String, String> env, String... args) throws IOException {
        final List<String> command = new ArrayList<>(List.of("srun", "--mpi=pmix", "-n", Integer.toString(ranks),
            GEXRANK.toString()));
        command.addAll(List.of(args));
        return start(command, env);
    }

    private static ManagedJob start(List<String> command, Map<String, String> env) throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(environment(env));
        return new ManagedJob(pb.start());
    }

    static Map<String, String> environment(Map<String, String> env) {
        final Map<String, String> m = new HashMap<>();
        m.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        m.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        m.put("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());
        m.putAll(env);
        return m;
    }

    String output() {
        return String.join("\n", lines);
    }
}
