// htm bound to Preact: tagged templates instead of JSX, so the source needs no compile step
// beyond the bundle.
import { h } from "preact";
import htm from "htm";

export const html = htm.bind(h);
