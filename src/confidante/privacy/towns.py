"""Town names the address detectors read after a street: the cities of the bundled district
map (in English, as GeoNames names them) and the local names of Europe's larger towns, which
an address written in its own language uses ("Praha", "København", "Warszawa", "Αθήνα")."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def cities() -> frozenset[str]:
    """Cities of the district map, as written there ("Frankfurt am Main")."""
    data = files(__package__).joinpath("data/subcity_places.tsv").read_text(encoding="utf-8")
    return frozenset(
        line.partition("\t")[2] for line in data.splitlines() if line and not line.startswith("#")
    )


@cache
def names() -> frozenset[str]:
    """Every town name, folded, with the first word of a long name ("Frankfurt" of "Frankfurt
    am Main") and the local names."""
    found = {c.casefold() for c in cities() if c}
    found |= {n.split()[0] for n in found if " " in n and len(n.split()[0]) >= 6}
    local = files(__package__).joinpath("data/local_town_names.txt").read_text(encoding="utf-8")
    found |= {
        line.strip().casefold() for line in local.splitlines() if line.strip() and line[0] != "#"
    }
    return frozenset(found)
