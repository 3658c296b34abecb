// The Node socket.io echo: the same namespace and handler as bench_bridge.py's python-socketio
// echo (tokenMoved answered with {ok, seq}), on socket.io's own server.
import { createServer } from "node:http";
import { Server } from "socket.io";

const http = createServer();
const io = new Server(http, { cors: { origin: "*" }, transports: ["websocket", "polling"] });
let n = 0;
io.of("/minitable").on("connection", (socket) => {
  socket.on("tokenMoved", (_data, ack) => {
    n += 1;
    if (typeof ack === "function") ack({ ok: true, seq: n });
  });
});
http.listen(0, "127.0.0.1", () => {
  console.log(`Listening on http://127.0.0.1:${http.address().port}`);
});
