#!/usr/bin/env python3
"""Writes the D.C. and Chicago OpenStreetMap dumps (../shared/data) in the Python reference's
input form, with their truth (data/truth) merged into one file each, so that
scripts/run-reference-experiment can score the reference on the same real data and truth as
pipelines/experiments/real-truth.json.

Usage: scripts/reference-real-inputs.py OUTDIR
Writes OUTDIR/{dc,chicago}.csv (id,name,category,lon,lat: osm_id, name, fclass),
OUTDIR/<city>.truth.geojson (restaurant and cafe truth), OUTDIR/<city>.truth_members.csv and
OUTDIR/<city>.must_not.geojson. Standard library only; the data stay ODbL (OpenStreetMap)."""
import csv, json, os, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cities = {
    "dc": ("dc-osm-2017", "washington-dc-2017.csv"),
    "chicago": ("chicago-osm-2019", "chicago-2019.csv"),
}
out = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
os.makedirs(out, exist_ok=True)
csv.field_size_limit(1 << 24)
for city, (folder, name) in cities.items():
    source = os.path.join(root, "..", "shared", "data", folder, name)
    with open(source, newline="", encoding="utf-8") as f, open(os.path.join(out, city + ".csv"), "w", newline="", encoding="utf-8") as g:
        w = csv.writer(g)
        w.writerow(["id", "name", "category", "lon", "lat"])
        for row in csv.DictReader(f):
            w.writerow([row["osm_id"], row["name"].strip(), row["fclass"], row["lon"], row["lat"]])
    truth = os.path.join(root, "data", "truth", folder)
    features = []
    for kw in ("restaurant", "cafe"):
        with open(os.path.join(truth, kw + ".truth.geojson"), encoding="utf-8") as f:
            features += json.load(f)["features"]
    with open(os.path.join(out, city + ".truth.geojson"), "w", encoding="utf-8") as g:
        json.dump({"type": "FeatureCollection", "features": features}, g, ensure_ascii=False)
    with open(os.path.join(out, city + ".truth_members.csv"), "w", encoding="utf-8") as g:
        g.write("id,cluster_id\n")
        for kw in ("restaurant", "cafe"):
            with open(os.path.join(truth, kw + ".truth_members.csv"), encoding="utf-8") as f:
                g.writelines(f.readlines()[1:])
    with open(os.path.join(truth, "must-not.geojson"), encoding="utf-8") as f, open(os.path.join(out, city + ".must_not.geojson"), "w", encoding="utf-8") as g:
        g.write(f.read())
    print(f"wrote {out}/{city}.*", file=sys.stderr)
