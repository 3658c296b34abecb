// Userscript entry: start the relay in the Roll20 editor page.
import { startRelay } from "./relay.js";

startRelay(window);
