/// The live view served at `GET /`: one HTML page with its script and style inline, no network fetches
/// beyond this server (`GET /state`, the `/timeline` WebSocket, `POST /transactions`).
///
/// It draws every target of the timeline's header: `position` (pt), `rotation` (radians), `scale` and
/// `opacity` move a card, as the examples' plots show a card; every other property is a live plot of its
/// last 240 frames. It shows the scheduler's activity and the frame, and has a box that commits a
/// transaction. The page reads two query arguments: `token` (sent as `Authorization: Bearer` and as the
/// WebSocket's `?token=`) and `send` (a transaction put in the box and committed once the timeline is
/// connected, for scripted checks).
///
/// Each card is `<div class="card" data-target=NAME data-x data-y data-opacity>`, so a test can read where
/// it was drawn.
enum LiveViewPage {
    /// Sent as `Content-Security-Policy`: nothing but this page's own inline script and style, and
    /// connections to this server.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>motion-host live view</title>
        <style>
        body { font: 14px system-ui, sans-serif; margin: 0; background: #f4f4f6; color: #222; }
        header { display: flex; gap: 1.5em; align-items: baseline; padding: .6em 1em; background: #fff; border-bottom: 1px solid #ddd; }
        header h1 { font-size: 1.1em; margin: 0; }
        #activity { padding: .1em .6em; border-radius: 1em; background: #ddd; }
        #activity.active { background: #2a7; color: #fff; }
        main { display: grid; grid-template-columns: 1fr 22em; gap: 1em; padding: 1em; }
        #stage { position: relative; min-height: 420px; background: #fff; border: 1px solid #ddd; overflow: hidden; }
        .card { position: absolute; left: 0; top: 0; width: 80px; height: 56px; margin: -28px 0 0 -40px; border-radius: 10px;
                background: #4a6cf7; color: #fff; display: flex; align-items: center; justify-content: center;
                box-shadow: 0 2px 8px rgba(0,0,0,.25); font-weight: 600; }
        .plots { display: grid; gap: .5em; margin-top: .6em; }
        .plot { background: #fff; border: 1px solid #ddd; padding: .3em .5em; }
        .plot svg { width: 100%; height: 60px; }
        .plot polyline { fill: none; stroke-width: 1.5; }
        textarea { width: 100%; height: 9em; font: 12px ui-monospace, monospace; box-sizing: border-box; }
        #result { display: block; white-space: pre-wrap; font: 12px ui-monospace, monospace; margin-top: .4em; }
        .values { font: 12px ui-monospace, monospace; }
        </style>
        </head>
        <body>
        <header><h1 id="name">motion-host</h1><span id="activity">idle</span><span>frame <span id="frame">–</span></span><span id="connection">connecting…</span></header>
        <main>
        <div><div id="stage"></div><div class="plots" id="plots"></div></div>
        <aside>
        <label for="transaction">Transaction</label>
        <textarea id="transaction" spellcheck="false"></textarea>
        <button id="commit" type="button">Commit</button>
        <output id="result"></output>
        <div class="values" id="values"></div>
        </aside>
        </main>
        <script>
        "use strict";
        const query = new URLSearchParams(location.search);
        const token = query.get("token");
        const headers = token ? { "Authorization": "Bearer " + token } : {};
        const cardProperties = new Set(["position", "rotation", "scale", "opacity"]);
        const colors = ["#4a6cf7", "#e4572e", "#2a7", "#a3a", "#f0a202"];
        const targets = new Map();  // name -> { values: {property: value}, card, plots: Map(property -> {svg, history}) }

        function text(value) { return Array.isArray(value) ? "[" + value.map(v => +v.toFixed(3)).join(", ") + "]" : String(+(+value).toFixed(3)); }

        function target(name) {
          let t = targets.get(name);
          if (t) return t;
          t = { values: {}, card: null, plots: new Map() };
          targets.set(name, t);
          return t;
        }

        function draw(name) {
          const t = target(name);
          const v = t.values;
          const hasCard = Object.keys(v).some(p => cardProperties.has(p));
          if (hasCard && !t.card) {
            t.card = document.createElement("div");
            t.card.className = "card";
            t.card.dataset.target = name;
            t.card.textContent = name;
            document.getElementById("stage").appendChild(t.card);
          }
          if (t.card) {
            const p = Array.isArray(v.position) ? v.position : [0, 0];
            const r = typeof v.rotation === "number" ? v.rotation : 0;
            const s = v.scale === undefined ? [1, 1] : Array.isArray(v.scale) ? v.scale : [v.scale, v.scale];
            const o = typeof v.opacity === "number" ? v.opacity : 1;
            t.card.style.transform = `translate(${p[0]}px, ${p[1]}px) rotate(${r}rad) scale(${s[0]}, ${s[1]})`;
            t.card.style.opacity = String(o);
            t.card.dataset.x = String(p[0]);
            t.card.dataset.y = String(p[1]);
            t.card.dataset.opacity = String(o);
          }
        }

        function plot(name, property, value) {
          const t = target(name);
          let p = t.plots.get(property);
          if (!p) {
            const box = document.createElement("div");
            box.className = "plot";
            box.dataset.target = name;
            box.dataset.property = property;
            box.innerHTML = `<div><span class="label"></span> <span class="value"></span></div><svg viewBox="0 0 240 60" preserveAspectRatio="none"></svg>`;
            box.querySelector(".label").textContent = name + "." + property;
            document.getElementById("plots").appendChild(box);
            p = { box, history: [] };
            t.plots.set(property, p);
          }
          p.history.push(Array.isArray(value) ? value : [value]);
          if (p.history.length > 240) p.history.shift();
          p.box.querySelector(".value").textContent = text(value);
          const all = p.history.flat();
          const lo = Math.min(...all), hi = Math.max(...all), span = hi - lo || 1;
          const svg = p.box.querySelector("svg");
          const lines = p.history[0].map((_, c) => {
            const points = p.history.map((h, i) => `${i},${58 - 56 * ((h[c] ?? lo) - lo) / span}`).join(" ");
            return `<polyline stroke="${colors[c % colors.length]}" points="${points}"/>`;
          });
          svg.innerHTML = lines.join("");
        }

        function setValue(name, property, value) {
          target(name).values[property] = value;
          if (!cardProperties.has(property)) plot(name, property, value);
        }

        function showValues() {
          const rows = [];
          for (const [name, t] of targets) for (const [p, v] of Object.entries(t.values)) rows.push(`${name}.${p} = ${text(v)}`);
          document.getElementById("values").textContent = rows.join("\n");
        }

        function setActivity(activity) {
          const el = document.getElementById("activity");
          el.textContent = activity;
          el.className = activity === "active" ? "active" : "";
        }

        function apply(line) {
          if (line.timeline !== undefined) {
            document.getElementById("name").textContent = line.name || "motion-host";
            for (const [name, properties] of Object.entries(line.targets || {})) {
              for (const [p, v] of Object.entries(properties)) if (target(name).values[p] === undefined) setValue(name, p, v);
              draw(name);
            }
          } else if (line.changes !== undefined) {
            document.getElementById("frame").textContent = line.frame;
            for (const [name, properties] of Object.entries(line.changes)) {
              for (const [p, v] of Object.entries(properties)) setValue(name, p, v);
              draw(name);
            }
          } else if (line.activity !== undefined) {
            setActivity(line.activity);
          } else if (line.summary !== undefined) {
            document.getElementById("connection").textContent = "stopped: " + line.summary.stoppedBecause;
          } else if (line.error !== undefined) {
            document.getElementById("result").textContent = "run failed: " + line.error;
          } else if (line.reload !== undefined) {
            document.getElementById("result").textContent = "reloaded " + line.reload + " at frame " + line.frame;
          }
          showValues();
        }

        async function commit() {
          const out = document.getElementById("result");
          const body = document.getElementById("transaction").value;
          try {
            const response = await fetch("/transactions", { method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers), body });
            const answer = await response.json();
            out.textContent = answer.committed ? "committed at frame " + answer.frame : response.status + ": " + answer.error;
            out.dataset.status = String(response.status);
          } catch (error) {
            out.textContent = "not sent: " + error;
          }
        }
        document.getElementById("commit").addEventListener("click", commit);

        async function start() {
          try {
            const response = await fetch("/state", { headers });
            if (response.ok) {
              const state = await response.json();
              document.getElementById("frame").textContent = state.frame;
              setActivity(state.activity);
              for (const [name, properties] of Object.entries(state.targets)) {
                for (const [p, v] of Object.entries(properties)) setValue(name, p, v);
                draw(name);
              }
              showValues();
            }
          } catch (error) {}
          const socket = new WebSocket(`ws://${location.host}/timeline` + (token ? "?token=" + encodeURIComponent(token) : ""));
          socket.onopen = () => {
            document.getElementById("connection").textContent = "live";
            const send = query.get("send");
            if (send !== null) {
              document.getElementById("transaction").value = send;
              document.getElementById("commit").click();
            }
          };
          socket.onmessage = event => apply(JSON.parse(event.data));
          socket.onclose = event => {
            const el = document.getElementById("connection");
            if (!el.textContent.startsWith("stopped")) el.textContent = "closed" + (event.reason ? ": " + event.reason : "");
          };
        }
        document.getElementById("transaction").value = JSON.stringify({ operations: [{ op: "add", target: "card", plan: { type: "SpringTo", property: "position", destination: [120, 80] } }] }, null, 2);
        start();
        </script>
        </body>
        </html>
        """#
}
