#!/usr/bin/python3
"""Generates the CSV files bench/README.md measures the readers' peak memory on.

    make_csv.py xyz OUT [ROWS]     x,y,z with 12 decimals (random.seed(1)), 1M rows: 45 MB
    make_csv.py places OUT [ROWS]  name,lon,lat,population (random.seed(2)), 1M rows: 41 MB
    make_csv.py wide OUT [ROWS]    32 columns c0..c31 of integers 0-99 (random.seed(3)),
                                   many short fields; 400k rows: 37 MB
"""
import random
import sys


def main():
    kind, out = sys.argv[1], sys.argv[2]
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else (400000 if kind == "wide" else 1000000)
    with open(out, "w", newline="\n") as f:
        if kind == "xyz":
            random.seed(1)
            f.write("x,y,z\n")
            for _ in range(rows):
                f.write("%.12f,%.12f,%.12f\n" % (random.random(), random.random(), random.random()))
        elif kind == "places":
            random.seed(2)
            f.write("name,lon,lat,population\n")
            for i in range(rows):
                f.write("place%d,%.6f,%.6f,%d\n" % (i, random.uniform(-180, 180), random.uniform(-90, 90),
                                                    random.randint(1000, 10**7)))
        elif kind == "wide":
            random.seed(3)
            f.write(",".join("c%d" % c for c in range(32)) + "\n")
            for _ in range(rows):
                f.write(",".join(str(random.randint(0, 99)) for _ in range(32)) + "\n")
        else:
            sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
