"""Cue words in Chinese, German, French, Spanish (and a little Portuguese and Italian) that
name a secret, a phone number or an id. The detectors read folded text (full-width
punctuation is already ASCII there), so only one form of each word is listed.
"""

from __future__ import annotations

# Nouns whose value is a password or a secret.
SECRET_NOUNS_ZH = (
    r"(?:支付|登录|登陆|银行卡|取款|交易|开机|解锁|邮箱|微信|QQ|wifi|WiFi|WIFI|无线|网银|账户|账号)?"
    r"(?:密码|密碼|口令|暗码)(?:短语|短句)?|私钥|私鑰|密钥|密鑰|秘钥|助记词|助記詞|令牌"
    r"|パスワード|暗証番号|비밀번호|암호"
)
PIN_NOUNS_ZH = r"(?:PIN|pin)\s*码|验证码|驗證碼|动态码|校验码|门禁密码|门锁密码"
SECRET_NOUNS_EU = (
    # German
    r"(?:WLAN-|Wlan-|E-Mail-|Email-|Konto-|Online-Banking-|Router-)?(?:Pass?wort|Ken{1,2}wort)"
    r"|Zugangsdaten|Zugangscode|Geheimcode|Sicherheitscode|API-Schlüssel|API-Key"
    r"|(?:WLAN|WiFi|WPA|Netzwerk)-?Schlüssel|Best[äa]tigungscode|m?TAN"
    r"|privater\s+Schlüssel|geheimer\s+Schlüssel"
    # French
    r"|Passphrase|Passsatz|Kennsatz"
    r"|mots?[\s-]de[\s-]pass?e?|phrases?[\s-]de[\s-]passe|phrase\s+secr[eè]te|mdp|code\s+secret|code\s+confidentiel|code\s+d['\u2019]acc[eè]s"
    r"|cl[ée]\s+(?:API|secr[eè]te|priv[ée]e|wifi|wi-fi|du\s+wifi)|code\s+(?:du\s+)?wi-?fi"
    r"|identifiants"
    # Spanish
    r"|contrase[ñn]as?|frase\s+(?:de\s+(?:contrase[ñn]a|paso|acceso)|secreta)"
    r"|clave(?:\s+(?:secreta|de\s+acceso|privada|API|del\s+wifi|wifi))?"
    r"|c[óo]digo\s+(?:de\s+acceso|secreto)|llave\s+privada"
    # Portuguese, Italian
    r"|senha|palavra-passe|chave\s+privada|parola\s+d['\u2019]ordine|chiave\s+privata"
)
PIN_NOUNS_EU = (
    r"PIN(?:-Code|-Nummer|code)?|Geheimzahl|Geheimnummer|Türcode|Torcode|Tür-Code|PUK"
    # German compounds: "Entsperrcode", "Zugangs-PIN", "SIM-PIN", "Freischaltcode"
    r"|(?:Entsperr|Sperr|Zugangs|Zugriffs|Freischalt|Türöffner|Handy|Geräte|Bildschirm|SIM"
    r"|Schloss|Safe|Schlüssel(?:kasten|box|safe|tresor)|Zahlenschloss|Fahrradschloss)-?(?:code|pin)"
    r"|code\s+(?:de\s+(?:la\s+|ma\s+|mon\s+)?)?(?:carte(?:\s+bleue)?|cb|s[ée]curit[ée]"
    r"|d[ée]verrouillage|alarme|cadenas)"
    r"|c[óo]digo\s+(?:de\s+(?:mi\s+|la\s+)?)?(?:tarjeta|seguridad|desbloqueo|alarma|candado)"
    r"|code\s+PIN|digicode|code\s+de\s+(?:la\s+)?porte|code\s+d['\u2019]entr[ée]e"
    r"|code\s+(?:de\s+l['\u2019](?:immeuble|alarme|interphone)|du\s+(?:portail|b[âa]timent|garage"
    r"|cadenas|coffre|casier)|de\s+la\s+bo[iî]te\s+(?:à|a|aux)\s+cl(?:é|e|ef)s?)|(?:Haust[üu]r|Garagen|Tor|Alarm|Tresor|Schlie(?:ss|ß)fach)code"
    r"|c[óo]digo\s+del?\s+(?:portal|edificio|garaje|caja\s+fuerte|port[óo]n|telefonillo"
    r"|cajet[íi]n|caja\s+de\s+(?:las\s+)?llaves)"
    r"|c[óo]digo\s+PIN|PIN|NIP|c[óo]digo\s+de\s+(?:la\s+)?puerta|codice\s+PIN"
)
# Copulas: "ist", "lautet", "est", "c'est", "es", "era", "é", "è", Chinese 是/为.
COPULA_EU = (
    r"(?:\s*,?\s*(?:(?:ist|lautet|lauten|war|sind|est|c['\u2019]est|était|es|era|sigue\s+siendo"
    r"|é|è|is)\b|[:=?])\s*(?:(?:jetzt|nun|immer\s+noch|maintenant|toujours|ahora|ya|todavía"
    r"|agora|ora)\s+)?(?::\s*)?)"
)
# Mixed-language chat borrows the copula too: "密码 is abc12345", "密码 ist ...".
COPULA_ZH = (
    r"\s*(?:是|为|為|就是|改成了?|改为|设置为|设为|换成了?|:|(?i:is|ist|est|es|=)(?=\s))?\s*"
)

# Words a value slot holds in ordinary talk: "Mein Passwort ist zu kurz", "mot de passe
# oublié", "la contraseña es muy larga". Lower case; never a secret on their own.
NOT_A_SECRET_EU = frozenset(
    """sicher unsicher falsch richtig geändert vergessen abgelaufen gesperrt neu alt lang kurz
    stark schwach einfach leicht schwer kompliziert gespeichert geheim identisch gleich
    derselbe dasselbe dieselbe anders hier da dort nicht kein keine ein eine einer der die das
    dem den mein meine dein deine sein seine ihr ihre unser unsere zu sehr noch schon jetzt
    immer auch nur leider wirklich total gut schlecht okay ok weg ungültig gültig korrekt
    inkorrekt zurückgesetzt irgendwas etwas nichts verschlüsselt privat
    trop très pas plus encore toujours déjà maintenant vraiment un une le la les mon ma ton ta
    son sa notre votre leur faux fausse correct correcte incorrect incorrecte expiré expirée
    changé changée oublié oubliée perdu perdue sécurisé sécurisée sûr sûre fort forte faible
    simple facile difficile compliqué compliquée long longue court courte nouveau nouvelle
    ancien ancienne bon bonne mauvais mauvaise différent différente pareil même bloqué
    bloquée invalide valide ici là secret secrète quelque rien personnel personnelle
    muy demasiado no ya aún todavía ahora siempre un una el la los las mi tu su nuestro
    nuestra correcta incorrecta correcto incorrecto caducada caducado cambiada cambiado
    olvidada olvidado perdida perdido segura seguro fuerte débil fácil difícil simple larga
    largo corta corto nueva nuevo vieja viejo igual misma mismo diferente bloqueada bloqueado
    inválida válida aquí allí secreta secreto algo nada personal privada
    muito não ainda agora sempre uma meu minha seu sua nossa correta errada fraca forte
    simples curta nova velha segura
    troppo molto non già ancora il mio mia tuo tua sbagliata debole facile semplice lunga
    nuova vecchia uguale stessa diversa sicura""".split()
)

# Words just before a phone number, in the languages above ("Tel.", "Telefon", "téléphone",
# "teléfono", "手机", "电话"...). Matched case-insensitively at the end of the text before it.
PHONE_CUES = (
    r"phone|mobile|cell(?:phone)?|\btel\b\.?|telephone|\bcall\s+(?:me|us|him|her|them)?\s*(?:on|at)?"
    r"|\bring\s+(?:me|us)?\s*(?:on|at)?|\btext\s+(?:me|us)?\s*(?:on|at)?|\bsms|whatsapp|signal"
    r"|(?:my|his|her|our|their|your|mum's|mom's|dad's)\s+(?:\w+\s+)?(?:number|no\.?)"
    r"|number\s+is|reach\s+(?:me|us|him|her)?\s*(?:on|at)?|contact|landline|\bfax|\bcel\b\.?"
    r"|handy(?:nummer)?|telefon(?:nummer)?|festnetz|mobil(?:nummer|funk)?|rufnummer"
    r"|ruf\s+(?:mich\s+)?an|erreichbar\s+unter|unter\s+der\s+nummer"
    r"|(?:meine|deine|seine|ihre|unsere|eure)\s+(?:\w+)?nummer"
    # someone's number: "Omas Nummer", "Peters Handynummer", "mum's number"
    # (not after an article: "das Los Nummer 123", "der Kurs Nummer 4711" are no one's)
    r"|(?<!der\s)(?<!die\s)(?<!das\s)(?<!des\s)(?<!den\s)(?<!dem\s)(?<!ein\s)(?<!eine\s)"
    r"(?<!einer\s)(?<!eines\s)\b[A-ZÄÖÜ][a-zäöüß]+s\s+(?:neue\s+)?(?:Handy|Telefon|Festnetz)?"
    r"[Nn]ummer"
    r"|\b(?!(?:week|today|tonight|year|month|day|team|game|episode|chapter|season)['\u2019])"
    r"\w+['\u2019]s\s+(?:new\s+)?(?:phone\s+|mobile\s+|cell\s+)?number\b(?!s)"
    r"|t[ée]l[ée]phone|t[ée]l\.?|portable|\bfixe\b|\bgsm\b|\bfijo\b|(?:mon|ton|son|notre|votre)\s+num[ée]ro|(?:m['\u2019])?appel(?:le[sz]?|er|ez)(?:-moi)?(?:\s+au)?|joindre\s+au|contacter\s+au|joignable\s+au"
    r"|tel[ée]fono|m[óo]vil|celular|llámame(?:\s+al)?|llamame(?:\s+al)?|whats"
    r"|(?:mi|tu|su|meu|seu|il\s+mio)\s+n[úu]mero"
    r"|telefone|telemóvel|ligue(?:-me)?|cellulare|telefono|chiamami"
    r"|电话|電話|手机|手機|手机号|手機號|联系方式|聯繫方式|号码|號碼|座机|打给我|微信号|call"
)

# Words that name a government id (cue before the number).
GOV_ID_CUES = (
    r"身份证(?:号码?|號碼?)?|身份證(?:號碼?)?|居民身份证|护照(?:号码?)?|護照(?:號碼?)?|社保(?:卡)?号|"
    r"(?:港澳|往来港澳|台湾|赴台)?通行证(?:号码?)?|台胞证(?:号码?)?|居住证(?:号码?)?|军官证(?:号码?)?|"
    r"医保卡?号|社会保障号码?|"
    r"Sozialversicherungsnummer|Rentenversicherungsnummer|SV-?(?:Nummer|Nr\.?)|RV-Nummer|"
    r"Reisepass(?:nummer)?|"
    # "Versichertennummer", "Krankenversicherungsnummer", "Krankenkassennummer"
    r"[A-Za-zäöü]*versicher(?:ten|ungs)-?(?:nummer|Nr\.?)|Krankenkassennummer|"
    r"Ausweis(?:nummer)?|Perso(?:nalausweis)?(?:nummer)?|Steuer[-\s]?(?:Identifikations-?)?(?:nummer|ID|IdNr|Nr\.?)|"
    r"num[ée]ro\s+de\s+s[ée]curit[ée]\s+sociale|s[ée]cu|NIR|num[ée]ro\s+fiscal|"
    # "n° SS", "n° de sécu", "numéro INSEE", "carte Vitale"
    r"(?:n[°º]|num[ée]ro)\s*(?:de\s+)?(?:SS|INSEE)\b|carte\s+vitale|"
    r"num[ée]ro\s+de\s+passeport|passeport|carte\s+d['\u2019]identit[ée]|"
    r"pasaporte|n[úu]mero\s+de\s+(?:la\s+)?seguridad\s+social|c[ée]dula|documento\s+de\s+identidad|(?:mi|tu|su)\s+documento|"
    r"CNI|"
    r"carteira\s+de\s+identidade|codice\s+fiscale|carta\s+d['\u2019]identit[àa]|"
    # driving licences, social security in Latin America
    r"F[üu]hrerschein(?:nummer)?|permis(?:\s+de\s+conduire)?|num[ée]ro\s+de\s+permis|"
    r"licencia(?:\s+de\s+(?:conducir|manejo))?|carn[ée]t?\s+de\s+conducir|驾驶证(?:号)?|驾照(?:号)?|"
    r"n[úu]mero\s+de\s+(?:afiliaci[óo]n|seguro\s+social)|NSS|RUN|RUT"
)

# Words that name a bank card or account.
CARD_CUES = (
    # any card in Chinese ("工资卡", "储蓄卡", "借记卡"): the number after it must be card-long
    r"银行卡(?:号)?|卡号|信用卡|借记卡|储蓄卡|卡|银联|UnionPay|帐号|账号|账户|帳號|银行|"
    r"Kreditkarte|Karte(?:nnummer)?|Kontonummer|Bankkonto|"
    r"carte\s+(?:bancaire|de\s+crédit|bleue)|num[ée]ro\s+de\s+carte|compte\s+bancaire|RIB|"
    r"tarjeta|n[úu]mero\s+de\s+(?:la\s+)?tarjeta|cuenta(?:\s+bancaria)?|cart[ãa]o|conta"
)

# Words that name a bank account (not a card), before its number, possibly a few words on.
ACCOUNT_CUES = (
    r"num[ée]ro\s+de\s+compte|n[°º]\s*de\s+compte|(?:mon|ton|son|notre|votre)\s+compte"
    r"|compte\s+(?:bancaire|courant|ch[èe]que|joint|[ée]pargne)|cl[ée]\s+RIB|RIB"
    r"|Kontonummer|Konto-?Nr\.?|Kontonr\.?|Kto\.?-?\s?(?:Nr\.?)?|Bankkonto|Konto\b"
    r"|BLZ|Bankleitzahl"
    r"|n[úu]mero\s+de\s+(?:la\s+)?cuenta|(?:mi|tu|su|nuestra)\s+cuenta"
    r"|cuenta\s+(?:bancaria|corriente|de\s+ahorros?)|CLABE(?:\s+interbancaria)?|CBU|CVU"
    r"|n[úu]mero\s+da\s+conta|conta\s+corrente|numero\s+di\s+conto|conto\s+corrente"
    r"|银行账号|银行帐号|账号|帳號|帐号|账户|賬戶|对公账户"
)
