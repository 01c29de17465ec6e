// Compiled with the Emulator trait (on by default); without it this module is empty.
#if Emulator
/// The console page: plain HTML, CSS and JavaScript, nothing fetched from elsewhere (it works
/// offline). It polls `/console/state`, publishes with AppSync's own `POST /event`, and injects
/// faults with `POST /console/faults`. Text from the server is inserted as text, never as HTML.
enum ConsolePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>AppSync Events emulator</title>
        <style>
          body { font: 14px/1.4 -apple-system, system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
          header { background: #232f3e; color: white; padding: 12px 20px; }
          header h1 { font-size: 17px; margin: 0; }
          main { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; padding: 16px 20px; }
          section { background: white; border-radius: 8px; padding: 12px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.1); }
          h2 { font-size: 15px; margin: 0 0 8px; }
          table { border-collapse: collapse; width: 100%; font-size: 13px; }
          th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
          code, textarea, input { font: 12px ui-monospace, Menlo, monospace; }
          label { display: block; margin: 8px 0 2px; font-weight: 600; }
          input, textarea, select { width: 100%; box-sizing: border-box; padding: 5px; }
          textarea { height: 120px; }
          button { margin-top: 10px; padding: 6px 14px; font-size: 14px; }
          .ok { color: #137333; } .failed { color: #b3261e; }
          #faults button { margin-right: 6px; }
          .wide { grid-column: 1 / -1; }
        </style>
        </head>
        <body>
        <header><h1>AppSync Events emulator — console</h1></header>
        <main>
          <section>
            <h2>Connections <span id="connection-count"></span></h2>
            <table id="connections"><thead><tr><th>Connection</th><th>Who</th><th>Subscriptions</th></tr></thead><tbody></tbody></table>
          </section>
          <section>
            <h2>Publish</h2>
            <form id="publish">
              <label for="channel">Channel</label>
              <input id="channel" name="channel" placeholder="namespace/path/of/the/channel" required>
              <label for="event">Event (JSON)</label>
              <textarea id="event" name="event" placeholder='{"eventType": "…"}' required></textarea>
              <label for="credential">API key or token</label>
              <input id="credential" name="credential" placeholder="da2-… (API key) or a JWT">
              <button type="submit">Publish</button>
            </form>
            <div id="publish-result"></div>
          </section>
          <section class="wide">
            <h2>Events (newest first)</h2>
            <table id="events"><thead><tr><th>Time</th><th>Id</th><th>Channel</th><th>Event type</th><th>Size</th><th>Delivered to</th></tr></thead><tbody></tbody></table>
          </section>
          <section class="wide" id="faults">
            <h2>Faults</h2>
            <button data-action="drop">Drop connections</button>
            <button data-action="freeze">Freeze connections</button>
            <button data-action="rejectNextConnect">Reject the next connect</button>
            <span id="fault-result"></span>
          </section>
        </main>
        <script>
        "use strict";
        function cell(row, text) { const td = document.createElement("td"); td.textContent = text; row.appendChild(td); return td; }
        function fill(table, rows) {
          const body = document.querySelector(table + " tbody");
          body.replaceChildren(...rows);
        }
        async function refresh() {
          try {
            const response = await fetch("/console/state", { cache: "no-store" });
            const state = await response.json();
            document.getElementById("connection-count").textContent = "(" + state.connections.length + ")";
            fill("#connections", state.connections.map(connection => {
              const row = document.createElement("tr");
              row.className = "connection";
              cell(row, connection.id + " · " + connection.transport);
              cell(row, connection.identity);
              const list = cell(row, "");
              for (const subscription of connection.subscriptions) {
                const line = document.createElement("div");
                line.className = "subscription";
                line.textContent = subscription.channel;
                list.appendChild(line);
              }
              return row;
            }));
            fill("#events", state.events.map(event => {
              const row = document.createElement("tr");
              row.className = "event";
              cell(row, new Date(event.at).toLocaleTimeString());
              cell(row, event.id);
              cell(row, event.channel);
              cell(row, event.eventType ?? "—");
              cell(row, event.bytes + " B");
              cell(row, String(event.deliveredTo));
              return row;
            }));
          } catch (error) {
            document.getElementById("connection-count").textContent = "(emulator not answering)";
          }
        }
        document.getElementById("publish").addEventListener("submit", async submit => {
          submit.preventDefault();
          const result = document.getElementById("publish-result");
          const channel = document.getElementById("channel").value.trim();
          const text = document.getElementById("event").value;
          const credential = document.getElementById("credential").value.trim();
          try { JSON.parse(text); } catch (error) { result.className = "failed"; result.textContent = "Event (JSON) is not JSON: " + error.message; return; }
          const headers = { "Content-Type": "application/json" };
          // A JWT has three dot-separated parts; anything else is an API key.
          if (credential.split(".").length === 3) { headers["Authorization"] = credential; } else if (credential) { headers["x-api-key"] = credential; }
          const response = await fetch("/event", { method: "POST", headers, body: JSON.stringify({ channel, events: [text] }) });
          const answer = await response.json().catch(() => ({}));
          if (response.ok && (answer.failed ?? []).length === 0) {
            result.className = "ok";
            result.textContent = "Published: " + (answer.successful ?? []).map(event => "event " + event.index + " (" + event.identifier + ")").join(", ");
          } else {
            result.className = "failed";
            const errors = (answer.errors ?? answer.failed ?? []).map(error => error.message ?? error.errorType ?? JSON.stringify(error));
            result.textContent = "Not published (HTTP " + response.status + "): " + errors.join("; ");
          }
          refresh();
        });
        for (const button of document.querySelectorAll("#faults button")) {
          button.addEventListener("click", async () => {
            const response = await fetch("/console/faults", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action: button.dataset.action }) });
            document.getElementById("fault-result").textContent = response.ok ? button.textContent + ": done" : "failed (HTTP " + response.status + ")";
            refresh();
          });
        }
        refresh();
        setInterval(refresh, 700);
        </script>
        </body>
        </html>
        """#
}
#endif
