#!/usr/bin/env python3
"""Street probe (issue 22, EXPERIMENTS.md "Streets inside regions, probed"): how many truth strips
a street layer inside the regions would match, before any such layer is built into the method.

Not part of the product: it reads a RegionSearch result and the keyword's POIs, looks for streets
inside each region by a greedy band search, and scores the bands against the truth strips at IoU
0.5 beside the regions alone.

The search, per region (its keyword POIs: inside its polygon; with --leaf, less those inside its
children): over directions every 2 degrees, bands 2 W wide across that direction, runs of POIs
along the band broken at gaps over `gap` x the region's spacing; a run is a street candidate with
at least 12 POIs and a length of at least 8 W (four times its band's width). Candidates are tested
against the region's own keyword density over the band's area (Poisson tail, times 90 directions
x the POIs searched, a Bonferroni bound over the places a band could lie): the candidate with the
most POIs among those at p <= alpha becomes a street, its POIs leave the search, and the search
goes on. A street is drawn as its principal line from its first POI to its last, grown by
W + 0.3 spacings and cut to the region.

Usage (the quality report's outputs; release build):
  scripts/quality-report --methods regionsearch --out OUT ...
  PY scripts/street-probe.py --regions OUT/work/dc/regionsearch.geojson \
      --pois ../shared/data/dc-osm-2017/washington-dc-2017.csv --crs EPSG:32618 \
      --truth data/truth/dc-osm-2017/restaurant-strips.truth.geojson [--width 35] [--gap 2] \
      [--alpha 0.05] [--leaf]
PY: a Python with numpy, scipy, shapely and pyproj (scripts/experiments-env).
"""
import argparse
import csv
import json
import math

import numpy as np
import pyproj
from scipy.stats import poisson
from shapely import transform as transform_coordinates
from shapely.geometry import LineString, Point, shape
from shapely.prepared import prep

MIN_POIS = 12
DIRECTIONS = 90


def runs_along(t, idx, gap):
    """Runs of positions `idx` sorted by `t`, broken where consecutive ones are over `gap` apart."""
    order = np.argsort(t)
    ts = t[order]
    ids = idx[order]
    out = []
    start = 0
    for k in range(1, len(ts) + 1):
        if k == len(ts) or ts[k] - ts[k - 1] > gap:
            out.append((ids[start:k], ts[start], ts[k - 1]))
            start = k
    return out


def streets(points, spacing, density, width, gap_factor, alpha):
    """Greedy band search (module docstring); returns [(positions, centre line)]."""
    gap = gap_factor * spacing
    left = np.arange(len(points))
    found = []
    while len(left) >= MIN_POIS:
        best = None
        for deg in range(0, 180, 180 // DIRECTIONS):
            th = math.radians(deg)
            c, s = math.cos(th), math.sin(th)
            q = points[left]
            along = q[:, 0] * c + q[:, 1] * s
            across = -q[:, 0] * s + q[:, 1] * c
            order = np.argsort(across)
            sorted_across = across[order]
            j = 0
            for i in range(len(sorted_across)):
                while sorted_across[i] - sorted_across[j] > 2 * width:
                    j += 1
                if i - j + 1 < MIN_POIS:
                    continue
                band = order[j : i + 1]
                for ids, a, b in runs_along(along[band], band, gap):
                    if len(ids) < MIN_POIS or b - a < 8 * width:
                        continue
                    if best is not None and (len(ids) < best[0] or (len(ids) == best[0] and b - a >= best[2])):
                        continue
                    p = DIRECTIONS * len(left) * poisson.sf(len(ids) - 1, density * 2 * width * (b - a))
                    if p > alpha:
                        continue
                    best = (len(ids), left[ids], b - a)
        if best is None:
            break
        _, ids, _ = best
        q = points[ids]
        mean = q.mean(0)
        _, _, vt = np.linalg.svd(q - mean)
        d = vt[0]
        t = (q - mean) @ d
        found.append((ids, LineString([mean + d * t.min(), mean + d * t.max()])))
        left = np.setdiff1d(left, ids)
    return found


def iou(a, b):
    union = a.union(b).area
    return a.intersection(b).area / union if union > 0 else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--regions", required=True, help="a RegionSearch result (GeoJSON)")
    ap.add_argument("--pois", required=True, help="CSV with lon, lat and fclass or category")
    ap.add_argument("--crs", required=True, help="a metric CRS for the city, e.g. EPSG:32618")
    ap.add_argument("--truth", required=True, help="the truth strips (GeoJSON)")
    ap.add_argument("--keyword", default="restaurant")
    ap.add_argument("--width", type=float, default=35.0, help="band half-width W, metres")
    ap.add_argument("--gap", type=float, default=2.0, help="a run breaks at this many region spacings")
    ap.add_argument("--alpha", type=float, default=0.05, help="significance level (Bonferroni bound)")
    ap.add_argument("--leaf", action="store_true", help="search each region's POIs outside its children only")
    args = ap.parse_args()

    to_metres = pyproj.Transformer.from_crs("EPSG:4326", args.crs, always_xy=True)

    def metric(g):
        return transform_coordinates(g, lambda c: np.column_stack(to_metres.transform(c[:, 0], c[:, 1])))

    xy = []
    with open(args.pois, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("fclass", row.get("category")) == args.keyword:
                xy.append(to_metres.transform(float(row["lon"]), float(row["lat"])))
    points = np.array(xy)
    regions = [f for f in json.load(open(args.regions))["features"] if f["properties"]["keyword"] == args.keyword]
    drawn = [metric(shape(f["geometry"])) for f in regions]
    truth = json.load(open(args.truth))["features"]
    truth_shapes = [metric(shape(f["geometry"])) for f in truth]

    bands = []
    for feature, polygon in zip(regions, drawn):
        inside_polygon = prep(polygon)
        inside = [i for i in range(len(points)) if inside_polygon.covers(Point(points[i]))]
        if args.leaf:
            children = [
                prep(g)
                for f, g in zip(regions, drawn)
                if f["properties"]["parent_id"] == feature["properties"]["region_id"]
            ]
            inside = [i for i in inside if not any(c.covers(Point(points[i])) for c in children)]
        if len(inside) < 2 * MIN_POIS:
            continue
        spacing = feature["properties"]["spacing_m"]
        density = len(inside) / polygon.area
        for _, line in streets(points[np.array(inside)], spacing, density, args.width, args.gap, args.alpha):
            bands.append(line.buffer(args.width + 0.3 * spacing).intersection(polygon))

    found_by_regions = found = 0
    for f, t in zip(truth, truth_shapes):
        by_regions = max([iou(t, g) for g in drawn] + [0])
        by_bands = max([iou(t, b) for b in bands] + [0])
        found_by_regions += by_regions >= 0.5
        found += max(by_regions, by_bands) >= 0.5
        name = f["properties"].get("truth_id", f["properties"].get("cluster_id"))
        print(f"  {name}  best IoU: regions {by_regions:.2f}, street bands {by_bands:.2f}")
    matching = sum(1 for b in bands if max(iou(t, b) for t in truth_shapes) >= 0.5)
    print(
        f"strip recall@0.5: regions {found_by_regions}/{len(truth)}, regions and street bands {found}/{len(truth)}; "
        f"street bands {len(bands)}, of which {matching} match a truth strip at IoU >= 0.5"
    )


if __name__ == "__main__":
    main()
