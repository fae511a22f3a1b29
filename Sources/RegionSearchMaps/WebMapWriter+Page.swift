// The web map's own style sheet and script (static text; the data comes as JSON).

extension WebMapWriter {
    static let pageCSS = """
        html, body, #map { height: 100%; margin: 0; }
        #map { background: #f4f4f0; }
        .rs-panel { background: rgba(255, 255, 255, 0.96); padding: 8px 11px; border-radius: 6px;
          box-shadow: 0 1px 5px rgba(0, 0, 0, 0.35); max-width: 380px;
          font: 13px/1.4 "Noto Sans CJK SC", "Noto Sans", "DejaVu Sans", sans-serif; color: #1a1a1a; }
        .rs-panel h1 { font-size: 15px; margin: 0 0 6px 0; }
        .rs-panel label { display: block; cursor: pointer; white-space: nowrap; }
        .rs-panel .rs-note { color: #555; font-size: 12px; }
        .rs-legend { margin-top: 7px; }
        .rs-legend .rs-swatches { display: flex; gap: 3px; margin-top: 3px; }
        .rs-legend .rs-swatch { flex: 1; text-align: center; font-size: 10.5px; color: #555; white-space: nowrap; }
        .rs-legend .rs-swatch span { display: block; height: 12px; border: 1px solid; margin-bottom: 2px;
          background-color: #f4f4f0; }
        .rs-legend .rs-swatch.rs-used { color: #1a1a1a; font-weight: bold; }
        .rs-legend .rs-swatch.rs-used span { border-width: 2px; }
        .leaflet-tooltip.rs-rank { background: rgba(255, 255, 255, 0.88); border: 1px solid #555; border-radius: 3px;
          box-shadow: none; padding: 0 4px; font-weight: bold; font-size: 12px; }
        .rs-popup table { border-collapse: collapse; font-size: 12px; }
        .rs-popup td { padding: 1px 6px 1px 0; vertical-align: top; }
        .rs-popup td:first-child { color: #555; }

        """

    static let pageScript = #"""
        "use strict";
        (function () {
          const data = JSON.parse(document.getElementById("regionsearch-data").textContent);
          const DETAIL = 128; // descend into a quadtree node while it is wider than this on screen (px)
          const map = L.map("map", { zoomSnap: 0.25, preferCanvas: true });
          const renderer = L.canvas({ padding: 0.25 });
          map.getContainer().style.background = data.background;
          const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
          const escape = (s) => String(s).replace(/[&<>"]/g, (c) => entities[c]);
          if (data.attribution) map.attributionControl.addAttribution(escape(data.attribution));
          map.attributionControl.addAttribution("RegionSearch");
          if (data.basemap) {
            L.tileLayer(data.basemap.url, { attribution: escape(data.basemap.attribution), maxZoom: 19 }).addTo(map);
          }
          L.control.scale({ imperial: false, maxWidth: 160 }).addTo(map);

          // POIs: a level-of-detail quadtree per layer. A move visits the nodes in view (deeper
          // while a node is wider than DETAIL px) and puts on the map just their points inside the
          // view; markers are made when first needed and dropped from the map when out of view.
          class PointLayer {
            constructor(tree, style, names, back) {
              this.tree = tree; this.style = style; this.names = names; this.back = back;
              this.group = L.layerGroup(); this.shown = new Map(); this.markers = new Map();
            }
            marker(k) {
              let m = this.markers.get(k);
              if (m) return m;
              const t = this.tree;
              const latlng = [t.o[1] + t.p[2 * k + 1] * t.q, t.o[0] + t.p[2 * k] * t.q];
              m = L.circleMarker(latlng, Object.assign({ renderer, interactive: !!this.names }, this.style));
              if (this.names && this.names[k]) {
                const name = this.names[k];
                m.bindPopup(() => { const d = document.createElement("div"); d.textContent = name; return d; });
              }
              this.markers.set(k, m);
              return m;
            }
            update() {
              const t = this.tree, b = map.getBounds().pad(0.1), z = map.getZoom();
              const x0 = (b.getWest() - t.o[0]) / t.q, x1 = (b.getEast() - t.o[0]) / t.q;
              const y0 = (b.getSouth() - t.o[1]) / t.q, y1 = (b.getNorth() - t.o[1]) / t.q;
              const pixelsPerUnit = t.q * 256 * Math.pow(2, z) / 360;
              const want = new Set(), stack = t.n.length ? [0] : [];
              while (stack.length) {
                const n = t.n[stack.pop()];
                if (n[2] <= x0 || n[0] >= x1 || n[3] <= y0 || n[1] >= y1) continue;
                for (let k = n[4]; k < n[4] + n[5]; k++) {
                  const x = t.p[2 * k], y = t.p[2 * k + 1];
                  if (x >= x0 && x <= x1 && y >= y0 && y <= y1) want.add(k);
                }
                if ((n[2] - n[0]) * pixelsPerUnit <= DETAIL) continue;
                for (let c = 6; c < 10; c++) if (n[c] >= 0) stack.push(n[c]);
              }
              for (const k of this.shown.keys()) {
                if (!want.has(k)) { this.group.removeLayer(this.shown.get(k)); this.shown.delete(k); }
              }
              for (const k of want) {
                if (this.shown.has(k)) continue;
                const m = this.marker(k);
                this.group.addLayer(m);
                // One canvas for everything, drawn in order: grey dots under the regions, the
                // keyword's dots over them (so a click on a dot names it, elsewhere the region).
                if (this.back) m.bringToBack();
                this.shown.set(k, m);
              }
            }
            get count() { return this.shown.size; }
          }

          const context = data.context
            ? new PointLayer(data.context, { radius: 2, stroke: false, fillColor: "#b9b9b9", fillOpacity: 1 }, null,
              true)
            : null;
          const keywords = data.keywords.map((kw) => {
            const regions = L.featureGroup();
            for (const r of kw.regions) {
              const layer = L.geoJSON({ type: "Feature", geometry: r.geometry, properties: {} }, {
                style: { color: kw.stroke, weight: data.strokeWidth, opacity: 1, fillColor: r.fill,
                  fillOpacity: r.opacity, renderer }
              });
              layer.eachLayer((p) => {
                p.bindPopup(() => popup(kw, r));
                if (r.rank === null) return;
                p.bindTooltip(String(r.rank), { permanent: true, direction: "center", className: "rs-rank" });
              });
              regions.addLayer(layer);
            }
            const poiStyle = { radius: 3.5, color: "#ffffff", weight: 1, opacity: 0.9, fillColor: kw.poiColor,
              fillOpacity: 1 };
            const pois = kw.pois ? new PointLayer(kw.pois, poiStyle, kw.pois.names, false) : null;
            return { kw, regions, pois };
          });

          function popup(kw, r) {
            const div = document.createElement("div");
            div.className = "rs-popup";
            const title = document.createElement("b");
            title.textContent = kw.name + (r.rank !== null ? " — rank " + r.rank : "");
            div.appendChild(title);
            const table = document.createElement("table");
            for (const [k, v] of r.properties) {
              const row = table.insertRow();
              row.insertCell().textContent = k;
              row.insertCell().textContent = v;
            }
            div.appendChild(table);
            return div;
          }

          // The panel: title, keyword switcher, legend of the selected keyword, the grey-POI toggle.
          let current = -1, showContext = true;
          const panel = L.control({ position: "topright" });
          panel.onAdd = function () {
            const div = L.DomUtil.create("div", "rs-panel");
            L.DomEvent.disableClickPropagation(div);
            L.DomEvent.disableScrollPropagation(div);
            const h = document.createElement("h1");
            h.textContent = data.title;
            div.appendChild(h);
            keywords.forEach((k, i) => {
              const label = document.createElement("label");
              const input = document.createElement("input");
              input.type = "radio"; input.name = "rs-keyword"; input.value = String(i); input.id = "rs-keyword-" + i;
              input.addEventListener("change", () => select(i));
              label.appendChild(input);
              const n = k.kw.regions.length;
              label.appendChild(document.createTextNode(" " + k.kw.name + " — " + n + " region" + (n === 1 ? "" : "s")
                + ", " + k.kw.poiCount + " POIs"));
              div.appendChild(label);
            });
            const legend = document.createElement("div");
            legend.className = "rs-legend"; legend.id = "rs-legend";
            div.appendChild(legend);
            if (context) {
              const label = document.createElement("label");
              const box = document.createElement("input");
              box.type = "checkbox"; box.checked = true; box.id = "rs-context";
              box.addEventListener("change", () => { showContext = box.checked; refresh(); });
              label.appendChild(box);
              label.appendChild(document.createTextNode(" grey dots: " + data.contextNote));
              label.className = "rs-note";
              div.appendChild(label);
            }
            return div;
          };
          panel.addTo(map);

          function rgba(hex, alpha) {
            const v = parseInt(hex.slice(1), 16);
            return "rgba(" + (v >> 16 & 255) + "," + (v >> 8 & 255) + "," + (v & 255) + "," + alpha + ")";
          }

          function drawLegend(k) {
            const legend = document.getElementById("rs-legend");
            legend.textContent = "";
            const title = document.createElement("div");
            title.className = "rs-note";
            title.textContent = data.legend.title;
            legend.appendChild(title);
            const row = document.createElement("div");
            row.className = "rs-swatches";
            const used = new Set(k.kw.regions.map((r) => r.fill));
            data.legend.labels.forEach((text, b) => {
              const cell = document.createElement("div");
              cell.className = "rs-swatch" + (used.has(k.kw.ramp[b]) ? " rs-used" : "");
              const swatch = document.createElement("span");
              swatch.style.borderColor = k.kw.stroke;
              const fill = rgba(k.kw.ramp[b], k.kw.opacities[b]);
              swatch.style.backgroundImage = "linear-gradient(" + fill + "," + fill + ")";
              cell.appendChild(swatch);
              cell.appendChild(document.createTextNode(text));
              row.appendChild(cell);
            });
            legend.appendChild(row);
          }

          function refresh() {
            if (context) {
              if (showContext && !map.hasLayer(context.group)) {
                context.group.addTo(map);
                context.group.eachLayer((m) => m.bringToBack());
              }
              if (showContext) context.update();
              else context.group.remove();
            }
            const k = keywords[current];
            if (k && k.pois) k.pois.update();
          }

          function select(i) {
            if (i === current) return;
            const old = keywords[current];
            if (old) { old.regions.remove(); if (old.pois) old.pois.group.remove(); }
            current = i;
            const k = keywords[i];
            if (!k) return;
            const radio = document.getElementById("rs-keyword-" + i);
            if (radio) radio.checked = true;
            drawLegend(k);
            k.regions.addTo(map);
            if (k.pois) k.pois.group.addTo(map);
            refresh();
          }

          map.fitBounds(data.bounds, { padding: [20, 20] });
          map.on("moveend", refresh);
          select(0);

          // For tests and the curious: what the page shows now.
          window.regionsearch = {
            map,
            select,
            stats: () => ({
              keyword: current,
              contextShown: context && showContext ? context.count : 0,
              contextTotal: data.context ? data.context.p.length / 2 : 0,
              poisShown: keywords[current] && keywords[current].pois ? keywords[current].pois.count : 0,
              poisTotal: keywords[current] ? keywords[current].kw.poiShown : 0,
              regions: keywords[current] ? keywords[current].kw.regions.length : 0,
              center: map.getCenter(), zoom: map.getZoom(), size: map.getSize()
            })
          };
        })();

        """#
}
