/// The fleet page, compiled into the binary so the gateway serves it with no files beside it
/// and no CDN: plain HTML, CSS and JavaScript; the plots are SVG drawn by the script.
///
/// The script loads `/api/fleet` once, then applies the server-sent events of `/api/events`.
/// Device ids and every text from events are set with `textContent`, never as HTML.
enum FleetPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Wearable Gateway · fleet</title>
        <link rel="stylesheet" href="/fleet.css">
        </head>
        <body>
        <header>
          <h1>Wearable Gateway <span class="sub">fleet</span></h1>
          <span id="live" class="badge off">connecting…</span>
          <span id="count" class="count"></span>
          <span id="updates" class="count" title="live updates received since the page loaded">0 updates</span>
        </header>
        <main>
          <section class="panel wide">
            <table id="devices">
              <thead><tr>
                <th>device</th><th>model</th><th>connection</th><th>headphones</th>
                <th>depth state</th><th>last swing</th><th>last error</th>
              </tr></thead>
              <tbody></tbody>
            </table>
            <p id="empty" class="hint">No device has said hello yet.</p>
          </section>
          <section class="panel">
            <h2>Dive profile <span id="depth-device" class="sub"></span></h2>
            <svg id="depth-profile" viewBox="0 0 480 220" role="img" aria-label="depth profile with depth-state bands"></svg>
          </section>
          <section class="panel">
            <h2>Time to contact <span id="ttc-summary" class="sub"></span></h2>
            <svg id="ttc-histogram" viewBox="0 0 480 220" role="img" aria-label="histogram of swing time to contact"></svg>
          </section>
          <section class="panel">
            <h2>Head pose <span id="pose-device" class="sub"></span></h2>
            <svg id="pose-dial" viewBox="0 0 220 220" role="img" aria-label="head pose dial: yaw and pitch"></svg>
          </section>
          <section class="panel wide" id="history">
            <h2>History <span id="history-device" class="sub"></span></h2>
            <p id="history-hint" class="hint">Click a device to list its last dives and swings from the event history.</p>
            <div class="columns">
              <div><h3>Last dives</h3><ol id="history-dives" class="events"></ol></div>
              <div><h3>Last swings</h3><ol id="history-swings" class="events"></ol></div>
            </div>
          </section>
        </main>
        <footer>Click a device to plot it. Data: <a href="/api/fleet">/api/fleet</a> · <a href="/metrics">/metrics</a> · <a href="/readyz">/readyz</a></footer>
        <script src="/fleet.js"></script>
        </body>
        </html>
        """

    static let style = """
        :root { --bg:#0f1419; --panel:#182029; --text:#e6e9ed; --muted:#8a96a3; --accent:#4fb3ff; --ok:#3ecf8e; --bad:#ff6b6b; --warn:#ffb84d; }
        * { box-sizing: border-box; }
        body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
        header { display:flex; align-items:center; gap:16px; padding:12px 20px; border-bottom:1px solid #26313d; }
        h1 { font-size:18px; margin:0; } h2 { font-size:14px; margin:0 0 8px; }
        .sub { color:var(--muted); font-weight:normal; }
        .badge { padding:2px 8px; border-radius:10px; font-size:12px; }
        .badge.on { background:#143d2c; color:var(--ok); } .badge.off { background:#3d1a1a; color:var(--bad); }
        .count { color:var(--muted); }
        main { display:grid; grid-template-columns:repeat(3, 1fr); gap:16px; padding:16px 20px; }
        .panel { background:var(--panel); border-radius:8px; padding:12px; min-width:0; }
        .wide { grid-column:1 / -1; }
        table { width:100%; border-collapse:collapse; }
        th, td { text-align:left; padding:6px 8px; border-bottom:1px solid #26313d; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; max-width:260px; }
        th { color:var(--muted); font-weight:600; font-size:12px; text-transform:uppercase; }
        tbody tr { cursor:pointer; } tbody tr:hover, tbody tr.selected { background:#1f2a36; }
        .connected, .contact { color:var(--ok); } .disconnected, .miss { color:var(--bad); } .error { color:var(--warn); }
        .hint { color:var(--muted); }
        svg { width:100%; height:auto; display:block; }
        #pose-dial { max-height:240px; }
        svg text { fill:var(--muted); font-size:10px; }
        footer { padding:0 20px 16px; color:var(--muted); } a { color:var(--accent); }
        h3 { font-size:12px; margin:0 0 6px; color:var(--muted); text-transform:uppercase; }
        .columns { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
        ol.events { margin:0; padding-left:18px; } ol.events li { padding:2px 0; } ol.events li.hint { list-style:none; margin-left:-18px; }
        """

    static let script = """
        "use strict";
        const fleet = new Map();
        let selected = null;
        let updates = 0;
        const SVGNS = "http://www.w3.org/2000/svg";
        const depthColours = { notSubmerged:"#2b3a48", approachingSurface:"#2f6f8f", submergedShallow:"#2f8fbf",
          submergedDeep:"#1f5faf", approachingMaxDepth:"#d08a2a", pastMaxDepth:"#c0392b", sensorDepthError:"#7f3f9f", unknown:"#444" };

        function device(id) {
          if (!fleet.has(id)) fleet.set(id, { deviceId:id, latest:{}, depthHistory:[], swings:[] });
          return fleet.get(id);
        }
        function apply(id, family, event) {
          const d = device(id);
          d.latest[family] = event;
          if (family === "depth_state" || family === "submersion") { d.depthHistory.push(event); if (d.depthHistory.length > 500) d.depthHistory.shift(); }
          if (family === "swing") { d.swings.push(event); if (d.swings.length > 500) d.swings.shift(); }
        }
        function cell(tr, text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); }
        function ago(date) {
          if (typeof date !== "number") return "";
          const s = Math.max(0, Date.now() / 1000 - date);
          return s < 90 ? Math.round(s) + " s ago" : s < 5400 ? Math.round(s / 60) + " min ago" : Math.round(s / 3600) + " h ago";
        }
        function swingText(s) {
          if (!s) return "—";
          const ttc = typeof s.timeToContact === "number" ? (s.timeToContact * 1000).toFixed(0) + " ms" : "no contact";
          return (s.contact ? "contact " : "miss ") + ttc;
        }
        function renderTable() {
          const body = document.querySelector("#devices tbody");
          body.replaceChildren();
          const ids = [...fleet.keys()].sort();
          document.getElementById("empty").hidden = ids.length > 0;
          document.getElementById("count").textContent = ids.length + (ids.length === 1 ? " device" : " devices");
          for (const id of ids) {
            const d = fleet.get(id), l = d.latest, tr = document.createElement("tr");
            tr.dataset.device = id;
            if (id === selected) tr.classList.add("selected");
            // A click also reads the device's history again.
            tr.addEventListener("click", () => { selected = id; historyShown = null; render(); });
            cell(tr, id, "device-id");
            cell(tr, l.availability ? l.availability.model + (l.availability.osVersion ? " · " + l.availability.platform + " " + l.availability.osVersion : "") : "—", "model");
            const c = l.connection ? l.connection.state : "—";
            cell(tr, c, "connection " + c);
            const h = l.headphone_connection ? l.headphone_connection.state + " (" + l.headphone_connection.reason + ")" : "—";
            cell(tr, h, "headphones " + (l.headphone_connection ? l.headphone_connection.state : ""));
            cell(tr, l.depth_state ? l.depth_state.state + " · " + Number(l.depth_state.depth || 0).toFixed(1) + " m" : "—", "depth");
            cell(tr, swingText(l.swing), "swing " + (l.swing ? (l.swing.contact ? "contact" : "miss") : ""));
            cell(tr, l.errors ? l.errors.code + " on " + l.errors.stream + " ×" + l.errors.count + " " + ago(l.errors.date) : "—", l.errors ? "error" : "");
            tr.lastChild.title = l.errors ? l.errors.detail : "";
            body.appendChild(tr);
          }
        }
        function svgEl(name, attrs, parent) {
          const el = document.createElementNS(SVGNS, name);
          for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
          if (parent) parent.appendChild(el);
          return el;
        }
        function label(svg, x, y, text, anchor) { const t = svgEl("text", { x, y, "text-anchor": anchor || "start" }, svg); t.textContent = text; return t; }
        function pick(predicate) {
          if (selected && fleet.has(selected) && predicate(fleet.get(selected))) return fleet.get(selected);
          return [...fleet.values()].sort((a, b) => a.deviceId < b.deviceId ? -1 : 1).find(predicate) || null;
        }
        function renderDepth() {
          const svg = document.getElementById("depth-profile");
          svg.replaceChildren();
          const d = pick(x => x.depthHistory.length > 0);
          document.getElementById("depth-device").textContent = d ? d.deviceId : "";
          if (!d) { label(svg, 240, 110, "no dive yet", "middle"); return; }
          // Points with a depth; each keeps the depth state last published before it.
          let state = "unknown";
          const pts = d.depthHistory.filter(e => typeof e.date === "number" && typeof e.depth === "number")
            .sort((a, b) => a.date - b.date)
            .map(e => { if (e.state) state = e.state; return { date:e.date, depth:e.depth, maximumDepth:e.maximumDepth, state }; });
          if (pts.length === 0) { label(svg, 240, 110, "no depth yet", "middle"); return; }
          const t0 = pts[0].date, t1 = Math.max(pts[pts.length - 1].date, t0 + 1);
          const maxDepth = Math.max(1, ...pts.map(e => e.depth || 0), ...pts.map(e => e.maximumDepth || 0));
          const X = t => 40 + (t - t0) / (t1 - t0) * 430, Y = m => 15 + m / maxDepth * 185;
          // One band per run of points in the same state.
          for (let i = 0; i < pts.length;) {
            let j = i;
            while (j + 1 < pts.length && pts[j + 1].state === pts[i].state) j++;
            const end = j + 1 < pts.length ? pts[j + 1].date : t1;
            const band = svgEl("rect", { x:X(pts[i].date), y:15, width:Math.max(1, X(end) - X(pts[i].date)), height:185, fill:depthColours[pts[i].state] || "#444", opacity:0.55 }, svg);
            band.dataset.state = pts[i].state;
            i = j + 1;
          }
          svgEl("polyline", { points:pts.map(e => X(e.date) + "," + Y(e.depth || 0)).join(" "), fill:"none", stroke:"#e6e9ed", "stroke-width":2 }, svg);
          for (const m of [0, maxDepth / 2, maxDepth]) label(svg, 36, Y(m) + 3, m.toFixed(1) + " m", "end");
          label(svg, 40, 214, new Date(t0 * 1000).toLocaleTimeString());
          label(svg, 470, 214, Math.round(t1 - t0) + " s", "end");
        }
        function renderTTC() {
          const svg = document.getElementById("ttc-histogram");
          svg.replaceChildren();
          const values = [];
          for (const d of fleet.values()) for (const s of d.swings) if (typeof s.timeToContact === "number") values.push(s.timeToContact * 1000);
          const misses = [...fleet.values()].reduce((n, d) => n + d.swings.filter(s => !s.contact).length, 0);
          document.getElementById("ttc-summary").textContent = values.length + " contacts, " + misses + " misses";
          if (values.length === 0) { label(svg, 240, 110, "no swing yet", "middle"); return; }
          const spread = Math.max(...values) - Math.min(...values);
          const width = spread <= 60 ? 5 : spread <= 150 ? 10 : 25, lo = Math.floor(Math.min(...values) / width) * width, hi = Math.max(lo + width, Math.ceil(Math.max(...values) / width) * width);
          const bins = new Array(Math.max(1, Math.round((hi - lo) / width))).fill(0);
          for (const v of values) bins[Math.min(bins.length - 1, Math.floor((v - lo) / width))]++;
          const top = Math.max(...bins), bw = 430 / bins.length;
          bins.forEach((n, i) => {
            const h = n / top * 180;
            const bar = svgEl("rect", { x:40 + i * bw + 1, y:200 - h, width:Math.max(1, bw - 2), height:h, fill:"#4fb3ff" }, svg);
            bar.dataset.count = n;
          });
          label(svg, 40, 214, lo + " ms"); label(svg, 470, 214, hi + " ms", "end"); label(svg, 36, 24, String(top), "end");
        }
        function renderPose() {
          const svg = document.getElementById("pose-dial");
          svg.replaceChildren();
          const d = pick(x => x.latest.headphone_pose);
          document.getElementById("pose-device").textContent = d ? d.deviceId : "";
          svgEl("circle", { cx:110, cy:110, r:90, fill:"none", stroke:"#3a4756", "stroke-width":2 }, svg);
          svgEl("circle", { cx:110, cy:110, r:45, fill:"none", stroke:"#26313d" }, svg);
          label(svg, 110, 14, "0°", "middle");
          if (!d) { label(svg, 110, 114, "no head pose yet", "middle"); return; }
          // Degrees (docs/headphones.md); positive yaw is a turn to the left, drawn anticlockwise.
          const p = d.latest.headphone_pose, yaw = p.yaw || 0, pitch = p.pitch || 0;
          const yawRad = -yaw * Math.PI / 180;
          const reach = 90 - Math.max(-80, Math.min(80, pitch)) / 90 * 45;
          svgEl("line", { x1:110, y1:110, x2:110 + reach * Math.sin(yawRad), y2:110 - reach * Math.cos(yawRad), stroke:"#3ecf8e", "stroke-width":4, "stroke-linecap":"round", id:"pose-needle" }, svg);
          label(svg, 110, 206, "yaw " + yaw.toFixed(0) + "°, pitch " + pitch.toFixed(0) + "°", "middle");
        }
        // The selected device's last dives and swings, read from the event history
        // (/api/devices/{id}/events), again when one of them arrives live.
        const historyFamilies = { dives:"submersion/dive", swings:"swing" };
        let historyShown = null, historyTimer = null;
        function when(seconds) { return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC"; }
        function diveText(d) {
          return Number(d.maxDepth || 0).toFixed(1) + " m · " + Math.round(d.duration || 0) + " s · " + (d.endReason || "") + (d.safetyStop ? " · safety stop " + d.safetyStop : "");
        }
        async function loadHistory(id) {
          const hint = document.getElementById("history-hint");
          for (const [name, family] of Object.entries(historyFamilies)) {
            const list = document.getElementById("history-" + name);
            try {
              const answer = await fetch("/api/devices/" + encodeURIComponent(id) + "/events?limit=10&family=" + encodeURIComponent(family), { cache:"no-store" });
              const page = await answer.json();
              if (!answer.ok) { hint.textContent = page.error || ("event history: HTTP " + answer.status); list.replaceChildren(); continue; }
              if (id !== selected) return;
              hint.textContent = "";
              list.replaceChildren(...page.events.map(e => {
                const li = document.createElement("li");
                li.dataset.eventId = e.eventId;
                li.textContent = when(e.eventTime) + " · " + (family === "swing" ? swingText(e.payload) : diveText(e.payload));
                return li;
              }));
              if (page.events.length === 0) { const li = document.createElement("li"); li.className = "hint"; li.textContent = "none kept"; list.replaceChildren(li); }
            } catch (e) { hint.textContent = "event history: " + e; }
          }
        }
        function renderHistory() {
          if (!selected || selected === historyShown) return;
          historyShown = selected;
          document.getElementById("history-device").textContent = selected;
          loadHistory(selected);
        }
        function historyChanged(id, family) {
          if (id !== selected || (family !== "submersion" && family !== "swing")) return;
          // Several live events in a row make one read, once the writer has had time to store them.
          clearTimeout(historyTimer);
          historyTimer = setTimeout(() => loadHistory(selected), 1000);
        }
        function render() { renderTable(); renderDepth(); renderTTC(); renderPose(); renderHistory(); }
        let pending = false;
        function schedule() { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; render(); }); } }

        async function start() {
          try {
            const snapshot = await (await fetch("/api/fleet", { cache:"no-store" })).json();
            for (const d of snapshot.devices) {
              const entry = device(d.deviceId);
              entry.latest = d.latest; entry.depthHistory = d.depthHistory; entry.swings = d.swings;
            }
          } catch (e) { console.error("snapshot", e); }
          render();
          const live = document.getElementById("live");
          const source = new EventSource("/api/events");
          source.onopen = () => { live.textContent = "live"; live.className = "badge on"; };
          source.onerror = () => { live.textContent = "reconnecting…"; live.className = "badge off"; };
          // The server ends the oldest page's stream when too many are open (http.maxLiveClients).
          source.addEventListener("superseded", () => { source.close(); live.textContent = "stopped: too many live pages, reload to resume"; live.className = "badge off"; });
          source.onmessage = m => {
            const u = JSON.parse(m.data);
            apply(u.deviceId, u.family, u.event);
            historyChanged(u.deviceId, u.family);
            updates += 1;
            document.getElementById("updates").textContent = updates + (updates === 1 ? " update" : " updates");
            schedule();
          };
        }
        start();
        """
}
