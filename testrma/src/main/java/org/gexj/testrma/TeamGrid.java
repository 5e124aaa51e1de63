package org.gexj.testrma;

/**
 * The nrows-by-ncols grid of ranks that GASNet's testteam and testsplit split into row and column teams: as given, or
 * as near square as divides the job.
 */
record TeamGrid(int rows, int cols) {
    /**
     * The grid of {@code args[at]} (rows) and {@code args[at + 1]} (columns) where given.
     *
     * @throws NumberFormatException for an argument that is not a number, or a grid that is not the job's
     */
    static TeamGrid parse(int nodes, String[] args, int at) {
        int rows;
        if (args.length > at) {
            rows = Integer.parseInt(args[at]);
        } else {
            rows = (int) Math.sqrt(nodes); // as near to square as possible
            while (nodes % rows != 0) {
                --rows;
            }
        }
        final int cols = args.length > at + 1 ? Integer.parseInt(args[at + 1]) : rows > 0 ? nodes / rows : 0;
        if (rows <= 0 || cols <= 0 || rows * cols != nodes) {
            throw new NumberFormatException(rows + "x" + cols + " is not a grid of the job's " + nodes + " ranks");
        }
        return new TeamGrid(rows, cols);
    }
}
