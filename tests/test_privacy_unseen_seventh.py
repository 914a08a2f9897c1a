"""Issue 22, part 7 (guard v3): everyday secrets and addresses an outside review found stored,
and the misses of the sixth held-out round, as general rules (sentences written here, none taken
from a held-out set): environment lines, logins as "user / password" after what they open, short
forms, a password given by a verb phrase, PINs and ids spelled out, quotes of the five
languages, cloud key pairs, defanged e-mails and HTML references, a phone with O for 0, a card
with slashes; street addresses written the international way (Nordic, Baltic, Central
European, Greek, German and Slavic names after a preposition), after a label, post-office
boxes, a corner with its city, a flat with a postcode and a town, lines joined by separators.
And what must stay: prices, versions, scores, dates, model numbers, gates, recipes, settings,
health talk, and the LoCoMo turn written as "speaker (date): text"."""

from __future__ import annotations

import pytest

from confidante import Memory

from conftest import assert_kept, assert_t3_found_and_redacted

# (text, category, the value that must not survive redaction)
T3 = [
    # credentials: environment and config lines
    ("DB_PASSWORD=hunter22", "credential", "hunter22"),
    ("NAME_PASS=Sunflower88", "credential", "Sunflower88"),
    ("export WIFI_PSK=purplemonkey", "credential", "purplemonkey"),
    ('SMTP_PASS="mail pass 99"', "credential", "mail pass 99"),
    ("ADMIN_PIN=4471", "credential", "4471"),
    ("wifi_psk: Lichterkette7 # Gäste", "credential", "Lichterkette7"),
    ("API_TOKEN=a81f93bd02c4e7", "credential", "a81f93bd02c4e7"),
    # credentials: logins after what they open, short forms
    ("wifi: HomeNet / sunflower22", "credential", "sunflower22"),
    ("bank: jsmith82 / tulips", "credential", "tulips"),
    ("router login admin / Tr0ub4dor", "credential", "Tr0ub4dor"),
    ("Netflix: anna.k / Movies2023", "credential", "Movies2023"),
    ("Zugang: admin / Geheim123", "credential", "Geheim123"),
    ("Box internet : admin / Chat-Noir-77", "credential", "Chat-Noir-77"),
    ("acceso: pepe_r / Gato#2020", "credential", "Gato#2020"),
    ("wifi pass sunflower22", "credential", "sunflower22"),
    ("bank pin 0815", "credential", "0815"),
    ("code: 4471", "credential", "4471"),
    ("key: Zebra-Crossing-12", "credential", "Zebra-Crossing-12"),
    ("pwd - bluebird", "credential", "bluebird"),
    ("Passwort \u2013 Sonnenblume77", "credential", "Sonnenblume77"),
    ("y la contra es luna2014!!", "credential", "luna2014!!"),
    # credentials: a verb phrase once the password was named
    ("new wifi password? I set it to tangerine-sky-7", "credential", "tangerine-sky-7"),
    ("changed the PIN and set it to 8842", "credential", "8842"),
    ("Passwort fürs WLAN geändert, jetzt ist es Sonne2024!", "credential", "Sonne2024!"),
    ("j'ai changé le mot de passe, je l'ai changé en Chaton#88", "credential", "Chaton#88"),
    ("cambié la contraseña, la puse como Perro_2023", "credential", "Perro_2023"),
    ("passwords: the bank one is 'Tulip!77'", "credential", "Tulip!77"),
    # credentials: spelled out, quoted
    ("my PIN is four seven one nine", "credential", "four seven one nine"),
    ("the door code is one two three four", "credential", "one two three four"),
    ("meine PIN ist vier sieben eins neun", "credential", "vier sieben eins neun"),
    ("mon code PIN c'est quatre sept un neuf", "credential", "quatre sept un neuf"),
    ("mi PIN es cuatro siete uno nueve", "credential", "cuatro siete uno nueve"),
    ("银行卡密码是四七一九", "credential", "四七一九"),
    ("支付密码：四 七 一 九", "credential", "四 七 一 九"),
    ("password: capital K, i, w, i, seven, seven", "credential", "K, i, w, i"),
    ("mot de passe : « le chat dort sur le toit »", "credential", "le chat dort"),
    ("密码是「blue-whale-42」", "credential", "blue-whale-42"),
    # credentials: cloud key pairs, recovery phrases
    ("LTAI5tRk8sQ2wXyZ1aBcD3eF / 9fKq2LmN8pR4sT6vX0yZ1aB3cD5eF7", "credential", "9fKq2LmN8p"),
    ("AK LTAI4GxyzAbc123DEF456ghi SK Abc123xyZ456defGHI789jklMNO012", "credential", "Abc123xyZ4"),
    ("助记词是：的 一 是 在 不 了 有 和 人 这 中 大", "credential", "的 一 是 在"),
    # e-mails: defanged, HTML references
    ("jane[at]gmail.com", "email", "gmail"),
    ("write to j.doe (at) uni-bonn (dot) de", "email", "uni-bonn"),
    ("jane@example[.]com", "email", "example"),
    ("mail me: jane&#64;example.com", "email", "jane"),
    ("contact : marie&commat;orange.fr", "email", "marie"),
    ("pedro[arroba]correo[punto]es", "email", "pedro"),
    # phones with O for 0
    ("call me on 07700 9OO123", "phone", "9OO123"),
    ("Handy: O171 2345678", "phone", "2345678"),
    # cards, accounts, ids
    ("my card is 4539/1488/0343/6467", "financial_account", "4539/1488"),
    (
        "code établissement 30004 code guichet 00550 numéro de compte 12345678901 clé RIB 25",
        "financial_account",
        "12345678901",
    ),
    ("my SSN is five five five, one two, three four five six", "gov_id", "three four five six"),
    ("Steuer-ID: null eins zwei drei vier fünf sechs sieben acht neun null", "gov_id", "null eins"),
    ("身份证号是一一零一零五一九九零零三零七二三四五", "gov_id", "一一零一"),
    ("my T4 shows my social insurance number as 527 916 384", "gov_id", "527 916 384"),
    ("SIN (from my T4): 527-916-384", "gov_id", "527-916-384"),
    ("die Perso-Nummer von Oma lautet LZ6311T47", "gov_id", "LZ6311T47"),
    ("meine Perso-Nummer: lz6311t47", "gov_id", "lz6311t47"),
    ("Personalausweis (Perso) Nr. L01X00T47", "gov_id", "L01X00T47"),
    # street addresses: a name and a number, the street word after it or none
    ("Vesterbrogade 3, 1620 København V", "street_address", "Vesterbrogade 3"),
    ("Hämeentie 14, 00530 Helsinki", "street_address", "Hämeentie 14"),
    ("Mannerheimintie 5 A 7", "street_address", "Mannerheimintie 5"),
    ("Karl Johans gate 22, Oslo", "street_address", "Johans gate 22"),
    ("Gedimino pr. 9, Vilnius", "street_address", "Gedimino pr. 9"),
    ("Vilniaus g. 12", "street_address", "Vilniaus g. 12"),
    ("Brīvības iela 55, Rīga", "street_address", "Brīvības iela 55"),
    ("Pärnu mnt 10, Tallinn", "street_address", "Pärnu mnt 10"),
    ("ul. Marszałkowska 84/92, Warszawa", "street_address", "Marszałkowska 84/92"),
    ("aleja Wiejska 13/90, 00-480 Warszawa", "street_address", "Wiejska 13/90"),
    ("Národní 9, Praha 1", "street_address", "Národní 9"),
    ("Kapitulská 92", "street_address", "Kapitulská 92"),
    ("Václavské náměstí 1", "street_address", "náměstí 1"),
    ("Na Strži 113, 140 00 Praha 4", "street_address", "Strži 113"),
    ("Andrássy út 22, Budapest", "street_address", "Andrássy út 22"),
    ("Váci utca 10.", "street_address", "Váci utca 10"),
    ("Slovenska cesta 10, Ljubljana", "street_address", "Slovenska cesta 10"),
    ("Radnički dol 752", "street_address", "Radnički dol 752"),
    ("Ερμού 25, Αθήνα 105 63", "street_address", "Ερμού 25"),
    ("Λεωφόρος Αλεξάνδρας 5", "street_address", "Αλεξάνδρας 5"),
    ("Storgatan 3 | 111 51 Stockholm", "street_address", "Storgatan 3"),
    ("Rio-Siering-Gasse 28", "street_address", "Siering-Gasse 28"),
    ("wir wohnen Am Kupfergraben 6", "street_address", "Kupfergraben 6"),
    ("Am Kupfergraben 6, Berlin", "street_address", "Kupfergraben 6"),
    ("Mein Büro ist Unter den Linden 77", "street_address", "Linden 77"),
    ("Rúa do Franco 12, Santiago", "street_address", "Franco 12"),
    ("a miña casa está na Rúa da Raíña 7", "street_address", "Raíña 7"),
    ("Alameda Mara Anjos, S/N, 1600-001 Lisboa", "street_address", "Mara Anjos"),
    ("chemin de Hardy, 63996 Chauveau", "street_address", "Hardy"),
    ("Ceylinboulevard 9, 6786 DL Slagharen", "street_address", "Ceylinboulevard 9"),
    ("6472 Hermiston Lock, Apt. 123", "street_address", "Hermiston Lock"),
    ("88 Jerde Pass, Port Lucas", "street_address", "Jerde Pass"),
    # street addresses after a label
    ("home: 14 Elm Close, Leeds", "street_address", "Elm Close"),
    ("addr: Vesterbro 22, 1620 Kbh", "street_address", "Vesterbro 22"),
    ("Anschrift: Lindenhof 12, 04109 Leipzig", "street_address", "Lindenhof 12"),
    ("domicile : 3 bis, Grand-Rue, 67000 Strasbourg", "street_address", "Grand-Rue"),
    ("dirección: Calle Mayor 5, Madrid", "street_address", "Calle Mayor 5"),
    # post-office boxes
    ("PO Box 4471, Wellington", "street_address", "4471"),
    ("Postfach 1220, 53002 Bonn", "street_address", "1220"),
    ("BP 45, 69001 Lyon", "street_address", "BP 45"),
    ("Apartado de Correos 123, 28080 Madrid", "street_address", "123"),
    ("邮政信箱 1234 号", "street_address", "1234"),
    ("北京市100084信箱", "street_address", "100084"),
    # a corner with its city; a flat with a postcode and a town; separators
    ("we live on the corner of Elm and 5th in Denver", "street_address", "Elm and 5th"),
    ("the corner of Rue Oberkampf and Rue Saint-Maur, Paris", "street_address", "Oberkampf"),
    ("wir wohnen Ecke Torstraße / Brunnenstraße, Berlin", "street_address", "Torstraße"),
    (
        "j'habite à l'angle de la rue Oberkampf et de la rue Saint-Maur, Paris",
        "street_address",
        "Oberkampf",
    ),
    ("vivo en la esquina de Alcalá con Goya, Madrid", "street_address", "Alcalá con Goya"),
    ("我家在朝阳区建国路与东三环路交叉口", "street_address", "建国路与东三环路"),
    ("Wohnung 5, 1010 Wien, Österreich", "street_address", "Wohnung 5"),
    ("Flat 2, 14 Chalton, London NW1 1JD, United Kingdom", "street_address", "14 Chalton"),
    ("piso 3, 28013 Madrid", "street_address", "28013"),
    ("Flat 3 > 12 Ashgrove > Leeds > LS6 2AB", "street_address", "Ashgrove"),
    ("Rosenvænget 12 | 2100 København Ø | Danmark", "street_address", "Rosenvænget 12"),
    ("Harmica 1c/9, 93786 Novalja", "street_address", "Harmica 1c/9"),
]

ORDINARY = [
    # settings, not secrets
    "PATH=/usr/local/bin",
    "PASSWORD_MIN_LENGTH=12",
    "PRIMARY_KEY=id",
    "SORT_KEY=created_at",
    "TOKEN_TTL=3600",
    "api_key: see the docs",
    # short forms in everyday senses
    "I changed my password yesterday",
    "bus pass: expired",
    "boarding pass: gate B22",
    "key: C minor",
    "code: 200 OK",
    "error code: 4044",
    "pw: see the vault",
    "wifi: slow / flaky today",
    "bank: closed / back Monday",
    "login: works / finally",
    "router: admin page / settings",
    "Wifi: 2.4 / 5GHz",
    "router: 192.168.1.1 / 255.255.255.0",
    "Netflix: 4 / 5 stars",
    "la contra es que cuesta mucho",
    "I set it to dark mode",
    "changed my password, set it to something longer",
    "my password manager? I set it to Bitwarden",
    "he said 'correct horse battery staple' is an xkcd joke",
    # numbers said as words, letters
    "one two three four, let's go",
    "four five six people came",
    "vier Sieben sind achtundzwanzig",
    "the pin is in my wallet",
    # prices, versions, scores, dates, models, gates, recipes
    "Score: 4 / 2 for the Lakers",
    "version 2.4.1 / 3.0.0",
    "Release 3.2 | 2024 Roadmap | Q3",
    "it costs 12 / 15 euros",
    "dates: 2023/05/14",
    "model 4539/1488 is discontinued",
    "the score was 3/1/0/2",
    "Flight LH 1402 / Gate A38 / Seat 12C",
    "the flight leaves from gate 12, Terminal 2",
    "Paris gate 12 is closed",
    "mix 2 cups flour / 1 cup sugar / 3 eggs",
    "1 1/2 cups milk",
    "order 4471-8821 shipped",
    "the O2 arena",
    "CO2 levels rose 400 ppm",
    "Página 87, ejercicio 4",
    "visited Alaska 3 times",
    "Supernova 2 was better",
    "Im Garten 3 Tomaten gepflanzt",
    "Am Montag 3 Stunden Training",
    "Im Jahr 2020 war alles anders",
    "Unter den Top 10",
    "In 2019 Berlin was cold",
    "Αθήνα 2004 was the best Olympics",
    "Andrássy was a politician",
    # corners, boxes, units in everyday senses
    "I moved my desk to the corner of the room",
    "the corner of Main and 5th is busy",
    "I live near the corner of 5th and Pine in Seattle",
    "BP 120/80 is fine",
    "Box 3 of 5 arrived",
    "Suite 16 by Bach, BWV 1007 Prelude",
    "Flat 2 bedrooms for rent",
    "home: 3 kids, 2 dogs",
    "home: back at 5",
    "addr: 404 not found",
    # health stays T2: stored, private
    "my blood pressure is 140/90 and I take lisinopril 10 mg",
    "BP 130/85 this morning, pulse 72",
    "Blutdruck 135/85, ich nehme 5 mg Ramipril",
    "tension 13/8 ce matin, je prends du Doliprane 1000",
    "tensión 12/8, tomo metformina 850 mg",
    "血压 130/85，每天吃一片降压药",
    # found by a wider check of the pass: brands, placeholders, symphonies, cars, states, years
    "Router: Netgear / TP-Link",
    "Bank: Chase / Wells Fargo",
    "Zelda: Breath / Tears",
    "DEBUG_PASS=true",
    "TOKEN=${GITHUB_TOKEN}",
    "DB_PASSWORD=$DB_PASS",
    "password is one word",
    "Auf dem Berg 2 Stunden gewandert",
    "Am Freitag 14 Uhr Training",
    "Nebraska 3, Iowa 2",
    "Dvořák 9 is my favourite symphony",
    "Škoda 120 was my first car",
    "Flat 12 was nice, 2019 Berlin trip",
    "Unter den Linden 77 ist das Hotel Adlon",
    "Terminal 2, Gate 14",
    "Anschrift: folgt",
    "地址：还没定",
    # LoCoMo turns with their session date
    "Caroline (1:56 pm on 8 May, 2023): It's a 1968 Kustom K-200A vintage guitar",
    "Evan (9:13 pm on 9 November, 2023): my 2004 Honda Civic still runs",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_seventh_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_seventh_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)
