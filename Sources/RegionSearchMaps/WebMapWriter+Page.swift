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
        .rs-panel .rs-levels { margin-top: 6px; white-space: normal; }

        """

    static let pageScript = #"""
        "use strict";
        (function () {
          const data = JSON.parse(document.getElementById("regionsearch-data").textContent);
          const POI_RADIUS = 3.5, POI_RING = 1, CONTEXT_RADIUS = 2;
          // How much of the map the dots of one layer may cover before they are thinned.
          const COVERAGE = 0.15;
          const map = L.map("map", { zoomSnap: 0.25, preferCanvas: true });
          map.getContainer().style.background = data.background;
          // Panes, bottom to top: every POI in grey, the keyword's POIs, then its regions and
          // their markers (one canvas, so a click finds the topmost: the finest region). The
          // regions are what a person sees first at every zoom; the dots show through them.
          const pane = (name, z) => { map.createPane(name).style.zIndex = String(z); return name; };
          const contextRenderer = L.canvas({ pane: pane("rs-context", 380), padding: 0.25 });
          const poiRenderer = L.canvas({ pane: pane("rs-pois", 390), padding: 0.25 });
          const regionRenderer = L.canvas({ pane: pane("rs-regions", 410), padding: 0.25 });
          const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
          const escape = (s) => String(s).replace(/[&<>"]/g, (c) => entities[c]);
          if (data.attribution) map.attributionControl.addAttribution(escape(data.attribution));
          map.attributionControl.addAttribution("RegionSearch");
          if (data.basemap) {
            L.tileLayer(data.basemap.url, { attribution: escape(data.basemap.attribution), maxZoom: 19 }).addTo(map);
          }
          L.control.scale({ imperial: false, maxWidth: 160 }).addTo(map);

          // POIs: a level-of-detail quadtree per layer. A move visits the nodes in view and puts
          // on the map their points inside the view: of each node, as many as its points' bounds
          // can hold on screen at the density left by its ancestors' (dots covering COVERAGE of
          // the map), a prefix of its even sample; the children only when all fitted. Markers are
          // made when first needed and dropped when out of view.
          class PointLayer {
            constructor(tree, style, names, renderer) {
              this.tree = tree; this.style = style; this.names = names; this.renderer = renderer;
              const reach = style.radius + (style.weight || 0);
              this.density = COVERAGE / (Math.PI * reach * reach);
              this.group = L.layerGroup(); this.shown = new Map(); this.markers = new Map(); this.thinned = false;
            }
            marker(k) {
              let m = this.markers.get(k);
              if (m) return m;
              const t = this.tree;
              const latlng = [t.o[1] + t.p[2 * k + 1] * t.q, t.o[0] + t.p[2 * k] * t.q];
              m = L.circleMarker(latlng, Object.assign({ renderer: this.renderer, interactive: false }, this.style));
              m.rsIndex = k;
              this.markers.set(k, m);
              return m;
            }
            update() {
              const t = this.tree, b = map.getBounds().pad(0.1), z = map.getZoom();
              const x0 = (b.getWest() - t.o[0]) / t.q, x1 = (b.getEast() - t.o[0]) / t.q;
              const y0 = (b.getSouth() - t.o[1]) / t.q, y1 = (b.getNorth() - t.o[1]) / t.q;
              // Pixels per unit across (longitude) and, near enough at the view's latitude, up.
              const pixelsPerUnit = t.q * 256 * Math.pow(2, z) / 360;
              const stretch = 1 / Math.cos(map.getCenter().lat * Math.PI / 180);
              const want = new Set(), stack = t.n.length ? [[0, 0]] : [];
              this.thinned = false;
              while (stack.length) {
                const [i, used] = stack.pop(), n = t.n[i];
                if (n[2] < x0 || n[0] > x1 || n[3] < y0 || n[1] > y1) continue;
                // The ground the node's points stand for: their bounds (w × h on screen) grown by
                // their spacing g, each point holding g × g, so that a row of dots (a street) is
                // not taken for a sheet; a lone point, or points at one place, hold one dot's share.
                const w = (n[2] - n[0]) * pixelsPerUnit, h = (n[3] - n[1]) * pixelsPerUnit * stretch, c = n[5];
                const g = c > 1 ? (w + h + Math.sqrt((w + h) * (w + h) + 4 * (c - 1) * w * h)) / (2 * (c - 1)) : 0;
                const area = Math.max((w + g) * (h + g), 1 / this.density);
                const fits = Math.max(0, Math.round((this.density - used) * area));
                const count = Math.min(n[5], fits);
                for (let k = n[4]; k < n[4] + count; k++) {
                  const x = t.p[2 * k], y = t.p[2 * k + 1];
                  if (x >= x0 && x <= x1 && y >= y0 && y <= y1) want.add(k);
                }
                const children = [n[6], n[7], n[8], n[9]].filter((c) => c >= 0);
                if (count < n[5] || (children.length && count >= fits)) {
                  this.thinned = true;
                  continue;
                }
                for (const c of children) stack.push([c, used + count / area]);
              }
              for (const k of this.shown.keys()) {
                if (!want.has(k)) { this.group.removeLayer(this.shown.get(k)); this.shown.delete(k); }
              }
              for (const k of want) {
                if (this.shown.has(k)) continue;
                const m = this.marker(k);
                this.group.addLayer(m);
                this.shown.set(k, m);
              }
            }
            get count() { return this.shown.size; }
          }

          const context = data.context
            ? new PointLayer(data.context, { radius: CONTEXT_RADIUS, stroke: false, fillColor: "#b9b9b9",
              fillOpacity: 1 }, null, contextRenderer)
            : null;
          const keywords = data.keywords.map((kw) => {
            const levels = kw.levelZoom.map(() => L.layerGroup());
            const markers = L.layerGroup();
            const items = kw.regions.map((r) => {
              const g = r.geometry;
              const latlngs = L.GeoJSON.coordsToLatLngs(g.coordinates, g.type === "Polygon" ? 1 : 2);
              const polygon = L.polygon(latlngs, { renderer: regionRenderer, color: kw.stroke,
                weight: data.strokeWidth, opacity: 1, fillColor: r.fill, fillOpacity: r.opacity });
              // A ring, pale inside, so that it is not taken for a POI dot.
              const marker = L.circleMarker([r.anchor[0], r.anchor[1]], { renderer: regionRenderer,
                radius: data.markerRadius, color: kw.stroke, weight: 2, opacity: 1, fillColor: "#ffffff",
                fillOpacity: 0.45 });
              const label = r.level === 0 && r.rank !== null
                ? L.tooltip({ permanent: true, className: "rs-rank", interactive: false }).setContent(String(r.rank))
                : null;
              const item = { r, polygon, marker, label };
              polygon.on("click", (e) => clicked(e, item));
              marker.on("click", (e) => clicked(e, item));
              levels[r.level].addLayer(polygon);
              return item;
            });
            const byId = new Map(items.map((it) => [it.r.id, it]));
            const poiStyle = { radius: POI_RADIUS, color: "#ffffff", weight: POI_RING, opacity: 0.9,
              fillColor: kw.poiColor, fillOpacity: 1 };
            const pois = kw.pois ? new PointLayer(kw.pois, poiStyle, kw.pois.names, poiRenderer) : null;
            return { kw, levels, markers, items, byId, pois };
          });

          // A region narrower than this on screen has its label beside it.
          const LABEL_INSIDE = 80;
          const levelShown = (k, level) => map.getZoom() >= k.kw.levelZoom[level] - 1e-9;
          const onScreen = (it) => it.r.extent * Math.pow(2, map.getZoom());

          // The levels of the zoom, coarsest drawn first; a marker for a region too small to see
          // (the coarsest of a chain of them); rank labels on level 0.
          function showRegions(k) {
            k.kw.levelZoom.forEach((_, level) => {
              const on = levelShown(k, level), layer = k.levels[level];
              if (on && !map.hasLayer(layer)) layer.addTo(map);
              if (!on && map.hasLayer(layer)) layer.remove();
            });
            k.kw.levelZoom.forEach((_, level) => {
              if (map.hasLayer(k.levels[level])) k.levels[level].eachLayer((l) => l.bringToFront());
            });
            for (const it of k.items) {
              const parent = it.r.parent === null ? null : k.byId.get(it.r.parent);
              const small = levelShown(k, it.r.level) && onScreen(it) < data.smallRegionPixels;
              const want = small && !(parent && onScreen(parent) < data.smallRegionPixels);
              if (want && !k.markers.hasLayer(it.marker)) k.markers.addLayer(it.marker);
              if (!want && k.markers.hasLayer(it.marker)) k.markers.removeLayer(it.marker);
              label(it, want);
            }
            k.markers.eachLayer((m) => m.bringToFront());
          }

          // A rank label in a large region's middle; beside a small one (or its marker), so that
          // the label never hides the region it names.
          function label(it, marked) {
            if (!it.label) return;
            const b = it.polygon.getBounds(), beside = onScreen(it) < LABEL_INSIDE;
            it.label.options.direction = beside ? "right" : "center";
            it.label.options.offset = beside ? [marked ? data.markerRadius + 2 : 4, 0] : [0, 0];
            it.label.setLatLng(beside ? [b.getCenter().lat, marked ? it.r.anchor[1] : b.getEast()]
              : (it.r.label || it.polygon.getCenter()));
            if (!map.hasLayer(it.label)) map.openTooltip(it.label);
            else it.label.update();
          }

          // Clicks: on a keyword POI (under the region), its name; elsewhere in a region, the
          // region's popup (the finest under the pointer, which the canvas finds last).
          function poiAt(point) {
            const k = keywords[current];
            if (!k || !k.pois) return null;
            let best = null, bestD = POI_RADIUS + POI_RING + 1.5;
            for (const m of k.pois.shown.values()) {
              const d = map.latLngToContainerPoint(m.getLatLng()).distanceTo(point);
              if (d <= bestD) { best = m; bestD = d; }
            }
            return best;
          }
          function openPOI(m) {
            const k = keywords[current];
            const div = document.createElement("div");
            div.className = "rs-popup";
            div.textContent = (k.pois.names && k.pois.names[m.rsIndex]) || "(no name)";
            L.popup().setLatLng(m.getLatLng()).setContent(div).openOn(map);
          }
          function clicked(e, it) {
            const poi = poiAt(e.containerPoint);
            if (poi) openPOI(poi);
            else L.popup().setLatLng(e.latlng).setContent(popup(keywords[current], it)).openOn(map);
          }
          map.on("click", (e) => { const poi = poiAt(e.containerPoint); if (poi) openPOI(poi); });

          function describe(k, it) {
            return k.kw.name + " — level " + it.r.level + (it.r.rank !== null ? ", rank " + it.r.rank : "");
          }
          function popup(k, it) {
            const div = document.createElement("div");
            div.className = "rs-popup";
            const title = document.createElement("b");
            title.textContent = describe(k, it);
            div.appendChild(title);
            const parent = it.r.parent === null ? null : k.byId.get(it.r.parent);
            const line = document.createElement("div");
            line.className = "rs-note";
            if (parent) {
              line.appendChild(document.createTextNode("inside: "));
              const a = document.createElement("a");
              a.href = "#"; a.textContent = describe(k, parent);
              a.addEventListener("click", (e) => {
                e.preventDefault();
                L.popup().setLatLng(map.getCenter()).setContent(popup(k, parent)).openOn(map);
              });
              line.appendChild(a);
            } else {
              line.textContent = "level 0: the coarsest, inside no other region";
            }
            div.appendChild(line);
            const table = document.createElement("table");
            for (const [name, v] of it.r.properties) {
              const row = table.insertRow();
              row.insertCell().textContent = name;
              row.insertCell().textContent = v;
            }
            div.appendChild(table);
            return div;
          }

          // The panel: title, keyword switcher, legend of the selected keyword, its levels, what
          // the dots are, the grey-POI toggle.
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
            const levels = document.createElement("div");
            levels.className = "rs-note rs-levels"; levels.id = "rs-levels";
            div.appendChild(levels);
            const dots = document.createElement("div");
            dots.className = "rs-note"; dots.id = "rs-dots";
            div.appendChild(dots);
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

          // What the levels are and which are shown at this zoom.
          function describeLevels(k) {
            const div = document.getElementById("rs-levels");
            const zooms = k.kw.levelZoom;
            const counts = zooms.map((_, level) => k.kw.regions.filter((r) => r.level === level).length);
            if (zooms.length < 2) { div.textContent = ""; return; }
            const shown = zooms.filter((_, level) => levelShown(k, level)).length;
            let text = data.legend.levels + " Regions by level: " + counts.join(", ") + ". Shown: level"
              + (shown > 1 ? "s 0–" + (shown - 1) : " 0");
            if (shown < zooms.length) text += "; level " + shown + " from zoom " + zooms[shown] + " (now "
              + map.getZoom() + ")";
            div.textContent = text + ".";
          }

          function describeDots(k) {
            const div = document.getElementById("rs-dots");
            if (!k.pois) { div.textContent = ""; return; }
            div.textContent = "Coloured dots under the regions: " + k.kw.name + " POIs"
              + (k.pois.thinned ? ", an even sample where all would cover the map (zoom in for every one)" : "")
              + ".";
          }

          function refresh() {
            if (context) {
              if (showContext && !map.hasLayer(context.group)) context.group.addTo(map);
              if (showContext) context.update();
              else context.group.remove();
            }
            const k = keywords[current];
            if (!k) return;
            if (k.pois) k.pois.update();
            showRegions(k);
            describeLevels(k);
            describeDots(k);
          }

          function select(i) {
            if (i === current) return;
            const old = keywords[current];
            if (old) {
              old.levels.forEach((l) => l.remove());
              old.markers.remove();
              for (const it of old.items) if (it.label) map.closeTooltip(it.label);
              if (old.pois) old.pois.group.remove();
            }
            map.closePopup();
            current = i;
            const k = keywords[i];
            if (!k) return;
            const radio = document.getElementById("rs-keyword-" + i);
            if (radio) radio.checked = true;
            drawLegend(k);
            k.markers.addTo(map);
            if (k.pois) k.pois.group.addTo(map);
            refresh();
          }

          map.fitBounds(data.bounds, { padding: [20, 20] });
          map.on("moveend", refresh);
          select(0);

          // For tests and the curious: what the page shows now.
          const rect = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
          window.regionsearch = {
            map,
            select,
            stats: () => {
              const k = keywords[current];
              return {
                keyword: current,
                contextShown: context && showContext ? context.count : 0,
                contextTotal: data.context ? data.context.p.length / 2 : 0,
                poisShown: k && k.pois ? k.pois.count : 0,
                poisTotal: k ? k.kw.poiShown : 0,
                poisThinned: !!(k && k.pois && k.pois.thinned),
                regions: k ? k.kw.regions.length : 0,
                levels: k ? k.kw.levelZoom.filter((_, level) => levelShown(k, level)).length : 0,
                levelZoom: k ? k.kw.levelZoom : [],
                markers: k ? k.markers.getLayers().length : 0,
                center: map.getCenter(), zoom: map.getZoom(), size: map.getSize()
              };
            },
            // The current keyword's regions: index (as in its region list), level, parent, whether
            // its level is shown, whether it has a marker, and where the marker is.
            regions: () => {
              const k = keywords[current];
              return k ? k.items.map((it) => ({ id: it.r.id, level: it.r.level, parent: it.r.parent,
                shown: map.hasLayer(it.polygon), marker: k.markers.hasLayer(it.marker),
                anchor: it.r.anchor })) : [];
            },
            // The keyword POI dots on the map, [lat, lng] each.
            shownPOIs: () => {
              const k = keywords[current];
              return k && k.pois ? [...k.pois.shown.values()].map((m) => [m.getLatLng().lat, m.getLatLng().lng]) : [];
            },
            // Screen boxes of what lies over the map: controls, labels, popups.
            overlays: () => [...document.querySelectorAll(".leaflet-control, .leaflet-tooltip, .leaflet-popup")]
              .map(rect),
            // The stacking of the panes (CSS z-index).
            panes: () => ({ context: +map.getPane("rs-context").style.zIndex,
              pois: +map.getPane("rs-pois").style.zIndex, regions: +map.getPane("rs-regions").style.zIndex }),
            // Opens region `id`'s popup (as a click would) and returns its text.
            openRegion: (id) => {
              const k = keywords[current], it = k && k.byId.get(id);
              if (!it) return null;
              const div = popup(k, it);
              L.popup().setLatLng(it.r.anchor).setContent(div).openOn(map);
              return div.textContent;
            }
          };
        })();

        """#
}
