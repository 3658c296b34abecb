// What to do while no VTT is connected to the world: the companions' addresses on this server,
// the world to name and the demo to try first. Open on a world no VTT has ever linked; folded
// (a click away) on one whose VTT is only away.
import { html } from "./html.js";

function Copy({ children }) {
  return html`<code class="copy">${children}</code>`;
}

export function LinkHelp({ world, link, origin }) {
  const away = Boolean(link.vtt);
  return html`
    <section class="panel link-help" aria-labelledby="link-h">
      <details open=${!away}>
        <summary><h2 id="link-h">Link a VTT to this world</h2></summary>
        <p>
          ${away ? "Its VTT is not connected now. " : "No VTT is linked to this world yet. "}The companion runs in the
          GM's browser and connects to this server with:
        </p>
        <dl class="settings">
          <dt>Server URL</dt>
          <dd><${Copy}>${origin}</${Copy}></dd>
          <dt>World</dt>
          <dd><${Copy}>${world}</${Copy}></dd>
          <dt>Key</dt>
          <dd>the world's GM key (<code>vttbridge serve</code> printed it when it made the world)</dd>
        </dl>
        <h3>Foundry VTT</h3>
        <p>
          <em>Add-on Modules → Install Module</em>, Manifest URL <${Copy}>${origin}/foundry/module.json</${Copy}>;
          enable the module in the world and fill in its settings as the GM. A Foundry on another machine (The
          Forge, Molten, a VPS) installs it from the public release instead, and the browser must reach the
          server URL: see <em>Where Foundry runs</em> in the deployment guide.
        </p>
        <h3>Roll20</h3>
        <p>
          The Mod script <a href="roll20/VTTBridge.js">${origin}/roll20/VTTBridge.js</a> goes into the game's${" "}
          <em>Mod (API) Scripts</em>; the relay userscript${" "}
          <a href="roll20/vttbridge-relay.user.js">${origin}/roll20/vttbridge-relay.user.js</a> into
          Tampermonkey or Violentmonkey.
        </p>
        <h3>Try it first</h3>
        <p>
          <${Copy}>vttbridge demo --world ${world}</${Copy}> plays a scripted fight into this world: watch it
          here.
        </p>
      </details>
    </section>
  `;
}
