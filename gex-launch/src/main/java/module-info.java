/**
 * GEX/J's launchers ({@code org.gexj.launch}): {@code gexrun} (ranks as processes of this host, or over ssh on
 * {@code --hosts}), {@code gexrank} (one rank under mpirun or srun) and {@code InProcessJob} (ranks as threads of one
 * JVM, for tests), with the rendezvous their ranks' TCP bootstrap joins. A rank needs none of this: gex-core joins.
 */
module org.gexj.launch {
    requires org.gexj.core;

    exports org.gexj.launch;
}
