#!/usr/bin/env python3
"""HDBSCAN peer: scikit-learn's HDBSCAN on each keyword's POIs, one polygon per cluster.

Usage: scripts/hdbscan-baseline.py POIS.csv --keywords K1,K2 -o OUT.geojson
           [--min-cluster-size 10] [--min-samples N] [--match category|substring|token]
           [--buffer-m 10] [--crs EPSG:…] [--timings T.json]

Run it with the experiments venv (PY=$(scripts/experiments-env): scikit-learn >= 1.3, which has
sklearn.cluster.HDBSCAN). The method, as the peer of DBSCAN in docs/EVALUATE.md's tables:

  input     a CSV with id,name,category,lon,lat (the generator's, or scripts/reference-real-inputs.py's
            for D.C. and Chicago); rows with missing or out-of-range coordinates are dropped.
  keyword   --match category (default): a POI is the keyword's when its category, NFKC-normalised and
            case-folded, equals the keyword so normalised — what RegionSearch's KeywordMatcher does on
            these inputs, whose category is one value per POI. --match substring / token: the Python
            reference's rule (the keyword in name + category, as a substring / a whole word).
  project   to the UTM zone of the POIs' median longitude and latitude (as refpipe.py), or --crs.
  cluster   per keyword, sklearn.cluster.HDBSCAN(min_cluster_size=10, min_samples=None (= the same),
            metric euclidean in metres, cluster_selection_method "eom", everything else at its default)
            on the keyword's POIs alone; noise (-1) is no region. 10 is DBSCAN's min_samples in our
            tables and RegionSearch's regions.min_keyword_pois order of size: a cluster is at least ten
            POIs, and HDBSCAN chooses its own density scale per cluster (no eps).
  polygon   the convex hull of the cluster's POIs grown by --buffer-m (10 m, so that a cluster on one
            line still has an area), in the projected CRS, written in WGS84 lon/lat (7 decimals,
            counter-clockwise), as dbscan_baseline.py of the reference writes its hulls.
  output    a GeoJSON FeatureCollection; per region region_id, keyword, level 0 (HDBSCAN's flat
            clusters: one level), rank (by keyword POIs, within the keyword), n_keyword_pois,
            area_m2; the top-level member "hdbscan" records the settings.
Deterministic: the same input and options give the same file.
"""
import argparse
import json
import resource
import sys
import time
import unicodedata

import numpy as np
import pandas as pd
import shapely
from pyproj import Transformer
from sklearn.cluster import HDBSCAN


def normalise(text):
    return unicodedata.normalize("NFKC", text).casefold().strip()


def keyword_mask(names, categories, keyword, mode):
    if mode == "category":
        k = normalise(keyword)
        return np.array([normalise(c) == k for c in categories], dtype=bool)
    text = (names.fillna("") + "\x1f" + categories.fillna("")).str.lower()
    k = keyword.lower()
    if mode == "substring":
        return text.str.contains(k, regex=False).to_numpy(bool)
    import re

    return text.str.contains(rf"(?<!\w){re.escape(k)}(?!\w)", regex=True).to_numpy(bool)


def utm_crs(lon, lat):
    zone = int((np.median(lon) + 180) // 6) % 60 + 1
    return f"EPSG:{32600 + zone if np.median(lat) >= 0 else 32700 + zone}"


def ring_coords(ring, back):
    x, y = back.transform(*np.asarray(ring.coords).T)
    return [[round(float(a), 7), round(float(b), 7)] for a, b in zip(x, y)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pois")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--keywords", required=True)
    ap.add_argument("--match", choices=["category", "substring", "token"], default="category")
    ap.add_argument("--min-cluster-size", type=int, default=10)
    ap.add_argument("--min-samples", type=int, default=None)
    ap.add_argument("--buffer-m", type=float, default=10.0)
    ap.add_argument("--crs")
    ap.add_argument("--timings")
    a = ap.parse_args()

    t0 = time.perf_counter()
    df = pd.read_csv(a.pois, dtype={"id": str, "name": str, "category": str}, keep_default_na=False)
    lon = pd.to_numeric(df["lon"], errors="coerce").to_numpy(float)
    lat = pd.to_numeric(df["lat"], errors="coerce").to_numpy(float)
    ok = (np.abs(lon) <= 180) & (np.abs(lat) <= 90)
    df, lon, lat = df[ok], lon[ok], lat[ok]
    crs = a.crs or utm_crs(lon, lat)
    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(lon, lat)
    xy = np.column_stack([x, y])
    back = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

    features = []
    counts = {}
    for keyword in [k for k in a.keywords.split(",") if k]:
        mask = keyword_mask(df["name"], df["category"], keyword, a.match)
        points = xy[mask]
        counts[keyword] = int(mask.sum())
        if len(points) < max(a.min_cluster_size, 2):
            continue
        labels = HDBSCAN(min_cluster_size=a.min_cluster_size, min_samples=a.min_samples, copy=True).fit(points).labels_
        regions = []
        for label in range(labels.max() + 1):
            members = points[labels == label]
            hull = shapely.convex_hull(shapely.multipoints(members))
            polygon = hull.buffer(a.buffer_m, quad_segs=8) if a.buffer_m > 0 else hull
            if polygon.geom_type != "Polygon" or polygon.area <= 0:
                continue
            polygon = shapely.geometry.polygon.orient(polygon, 1.0)
            regions.append((len(members), polygon))
        # Rank by keyword POIs (most first); ties in cluster order.
        for rank, (n, polygon) in enumerate(sorted(regions, key=lambda r: -r[0]), 1):
            features.append({
                "type": "Feature",
                "geometry": {"type": "Polygon", "coordinates": [ring_coords(polygon.exterior, back)]
                             + [ring_coords(r, back) for r in polygon.interiors]},
                "properties": {"region_id": len(features), "keyword": keyword, "level": 0, "parent_id": None,
                               "rank": rank, "n_keyword_pois": n, "area_m2": round(float(polygon.area), 1)},
            })
    meta = {"method": "hdbscan", "crs": crs, "min_cluster_size": a.min_cluster_size, "min_samples": a.min_samples,
            "buffer_m": a.buffer_m, "match": a.match, "n_pois": int(len(xy)), "n_keyword_pois": counts,
            "n_regions": len(features)}
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump({"type": "FeatureCollection", "hdbscan": meta, "features": features}, fh, ensure_ascii=False)
    seconds = round(time.perf_counter() - t0, 3)
    if a.timings:
        with open(a.timings, "w") as fh:
            json.dump(meta | {"total_s": seconds,
                              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)},
                      fh, ensure_ascii=False, indent=1)
    print(json.dumps(meta | {"seconds": seconds}, ensure_ascii=False), file=sys.stderr)


if __name__ == "__main__":
    main()
