/**
 * GEX/J's PMIx bootstrap: ranks that a resource manager's PMIx server starts ({@code mpirun},
 * {@code srun --mpi=pmix}) join their job through libpmix, bound with FFM ({@code org.gexj.bootstrap.pmix.ffm}).
 * Found by {@code Gex.init} through its {@code provides}; nothing is exported.
 */
module org.gexj.bootstrap.pmix {
    requires org.gexj.core;

    provides org.gexj.spi.BootstrapProvider with org.gexj.bootstrap.pmix.PmixBootstrapProvider;
}
