import org.gexj.*;
import org.gexj.am.*;
import org.gexj.rma.Rma;

import java.lang.foreign.*;

public final class Ring {
    public static void main(String[] args) {
        try (Client client = Gex.init("RING")) {                   // collective, implicit barrier
            Segment seg = client.attachSegment(1 << 20);             // page multiple, off-heap, one per rank
            Am am = Am.of(client);
            int[] got = new int[1];
            int PONG = am.register(AmHandler.shortReply(1, (token, a) -> got[0] = a.get(0)));
            int PING = am.register(AmHandler.shortRequest(1, (token, a) -> token.replyShort(PONG, a.get(0) + 1)));
            client.barrier();                                        // handlers registered everywhere
            int peer = (client.rank() + 1) % client.size();
            am.requestShort(peer, PING, 41);
            while (got[0] == 0) client.poll();                       // handlers run inside poll
            Rma.of(client).putVal(peer, 0, got[0], 4);               // remote address = offset in peer's segment
            client.barrier();
            System.out.println("rank " + client.rank() + ": " + seg.memory().get(ValueLayout.JAVA_INT, 0));
        }
    }
}
