"""Curated word lists for the value categories Faker has no provider for (skills, products,
departments, status words, ...), in English; category_values.py turns them into NumPy pools.
Design notes: docs/generation.md."""

from __future__ import annotations


def _items(text: str) -> tuple[str, ...]:
    """Entries separated by `;`, spread over lines as needed (a line break is a space)."""
    return tuple(" ".join(x.split()) for x in text.split(";") if x.strip())


SKILLS = _items(
    """Python; Java; JavaScript; TypeScript; Go; Rust; C#; C++; SQL; Kotlin; Swift; Ruby; PHP; Scala; R;
    Bash; HTML; CSS; React; Angular; Vue.js; Node.js; Django; Spring Boot; .NET; Docker; Kubernetes;
    Terraform; AWS; Azure; Google Cloud; Linux; Git; CI/CD; PostgreSQL; MySQL; MongoDB; Redis; Kafka;
    Spark; Machine learning; Data analysis; Statistics; Excel; Power BI; Tableau; Figma; UX design;
    Graphic design; Copywriting; SEO; Content marketing; Social media marketing; Project management;
    Agile; Scrum; Product management; Stakeholder management; Negotiation; Public speaking; Leadership;
    Team management; Customer service; Sales; Account management; Budgeting; Financial modelling;
    Accounting; Bookkeeping; Payroll; Recruiting; Training; Technical writing; Translation; Quality
    assurance; Test automation; Security auditing; Networking; Cloud architecture; System
    administration; Database administration; Embedded systems; Electrical engineering; CAD; AutoCAD;
    Supply chain management; Logistics; Procurement; Forklift operation; First aid; Welding; Carpentry;
    Plumbing; Photography; Video editing; Event planning; Research; Problem solving"""
)

_LANGUAGE_TEXT = _items(
    """en English; de German; fr French; es Spanish; it Italian; pt Portuguese; nl Dutch; sv Swedish; da
    Danish; no Norwegian; fi Finnish; pl Polish; cs Czech; sk Slovak; hu Hungarian; ro Romanian; bg
    Bulgarian; el Greek; tr Turkish; ru Russian; uk Ukrainian; ar Arabic; he Hebrew; fa Persian; hi
    Hindi; bn Bengali; ur Urdu; ta Tamil; th Thai; vi Vietnamese; id Indonesian; ms Malay; zh Chinese;
    ja Japanese; ko Korean; sw Swahili; hr Croatian; sl Slovenian; et Estonian; lt Lithuanian"""
)
# (ISO 639-1 code, English name)
LANGUAGES: tuple[tuple[str, str], ...] = tuple((x[:2], x[3:]) for x in _LANGUAGE_TEXT)

LOCALES = _items(
    """en-US; en-GB; en-CA; en-AU; en-IE; de-DE; de-AT; de-CH; fr-FR; fr-CA; fr-BE; es-ES; es-MX; it-IT;
    pt-PT; pt-BR; nl-NL; nl-BE; sv-SE; da-DK; nb-NO; fi-FI; pl-PL; cs-CZ; hu-HU; ro-RO; el-GR; tr-TR;
    ru-RU; uk-UA; ja-JP; ko-KR; zh-CN; zh-TW; hi-IN; ar-SA; he-IL; th-TH; id-ID; vi-VN"""
)

DEPARTMENTS = _items(
    """Sales; Marketing; Engineering; Research and Development; Finance; Accounting; Human Resources;
    Legal; Operations; Customer Support; Customer Success; Information Technology; Procurement;
    Logistics; Production; Quality Assurance; Product Management; Design; Business Development; Public
    Relations; Facilities; Security; Compliance; Data Science; Administration; Training; Purchasing;
    Warehouse; Maintenance; Executive Office"""
)

STATUSES = _items(
    """active; inactive; pending; approved; rejected; cancelled; completed; failed; open; closed; draft;
    published; archived; in_progress; on_hold; processing; shipped; delivered; paid; refunded; expired;
    suspended"""
)

ROLES = _items("""admin; owner; editor; viewer; member; manager; guest; contributor; auditor""")

PRIORITIES = _items("""low; medium; high; critical; urgent; normal""")

ENVIRONMENTS = _items("""production; staging; development; test; qa; sandbox; preview""")

HTTP_METHODS = _items("""GET; POST; PUT; PATCH; DELETE; HEAD; OPTIONS""")

UNITS = _items("""kg; g; lb; m; cm; mm; km; l; ml; pcs; box; pack; h; min; m2""")

CATEGORIES = _items(
    """Electronics; Books; Clothing; Home & Garden; Sports; Toys; Health; Beauty; Automotive; Grocery;
    Office Supplies; Music; Movies; Jewelry; Pet Supplies; Tools; Furniture; Travel; Finance; Education;
    Software; Food & Drink"""
)

INDUSTRIES = _items(
    """Software; Banking; Insurance; Retail; Manufacturing; Healthcare; Pharmaceuticals;
    Telecommunications; Energy; Utilities; Logistics; Construction; Real Estate; Hospitality; Education;
    Media; Automotive; Agriculture; Aerospace; Consulting; Government; Non-profit; E-commerce;
    Biotechnology; Food and Beverage"""
)

TAGS = _items(
    """new; sale; featured; bestseller; limited; urgent; backend; frontend; bug; feature; docs; security;
    performance; customer; internal; review; billing; mobile; web; api; ux; marketing; q3; follow-up;
    vip; eco; premium; beta; legacy; priority; summer; gift; outdoor; kids; organic; wholesale"""
)

HOBBIES = _items(
    """Reading; Hiking; Cycling; Running; Swimming; Cooking; Baking; Gardening; Photography; Painting;
    Drawing; Chess; Yoga; Fishing; Camping; Travelling; Playing guitar; Piano; Singing; Dancing;
    Knitting; Woodworking; Board games; Video games; Bird watching; Climbing; Skiing; Surfing;
    Volunteering; Writing"""
)

LICENSES = _items(
    """MIT; Apache-2.0; BSD-3-Clause; BSD-2-Clause; GPL-3.0-only; GPL-2.0-or-later; LGPL-3.0-only; MPL-2.0;
    ISC; EPL-2.0; AGPL-3.0-only; Unlicense; CC0-1.0"""
)

GIT_BRANCHES = _items(
    """main; master; develop; release/1.4; release/2.0; feature/login-page; feature/payment-api;
    feature/search; bugfix/null-pointer; hotfix/security-patch; feature/dark-mode; chore/update-deps;
    staging"""
)

COMMANDS = _items(
    """npm test; npm run build; npm ci; yarn install; pytest -q; python -m pip install -r requirements.txt;
    make build; make test; go test ./...; go build ./...; cargo build --release; cargo test; mvn -B
    package; gradle build; dotnet test; docker build -t app .; ./scripts/deploy.sh; bundle exec rspec;
    tox -e py312; echo done"""
)

CONTAINER_IMAGES = _items(
    """nginx:1.25; postgres:16; redis:7-alpine; python:3.12-slim; node:20-alpine; ubuntu:22.04;
    alpine:3.19; mysql:8.0; golang:1.22; eclipse-temurin:21-jre; mcr.microsoft.com/dotnet/aspnet:8.0;
    ghcr.io/acme/api:2.3.1; busybox:1.36; httpd:2.4"""
)

# thing names: "<adjective> <noun>" (projects, teams, services without a more specific meaning)
LABEL_ADJECTIVES = _items(
    """Silver; Blue; Northern; Rapid; Quiet; Bright; Golden; Green; Swift; Iron; Crystal; Red; Central;
    Eastern; Western; Southern; Summit; Coastal; Urban; Prime; Bold; Clear; Royal; Solar; Polar; Ocean;
    Alpine; Grand; Smart; Open"""
)

LABEL_NOUNS = _items(
    """Harbor; Falcon; Bridge; Gateway; River; Summit; Horizon; Beacon; Atlas; Orbit; Pioneer; Compass;
    Meadow; Forge; Anchor; Canyon; Harvest; Signal; Vertex; Garden; Tower; Voyager; Lantern; Circle;
    Project; Portal; Works; Network; Studio; Hub; Line; Path; Point; Core; Ridge; Valley; Grove"""
)

# product names: "<adjective> <material> <product>" (as faker.js's commerce.productName)
PRODUCT_ADJECTIVES = _items(
    """Ergonomic; Rustic; Sleek; Intelligent; Handcrafted; Practical; Compact; Durable; Lightweight;
    Premium; Classic; Modern; Portable; Wireless; Refined; Elegant; Gorgeous; Fantastic; Incredible;
    Awesome; Small; Large; Deluxe"""
)

PRODUCT_MATERIALS = _items(
    """Steel; Wooden; Cotton; Leather; Plastic; Granite; Rubber; Bamboo; Ceramic; Glass; Aluminum; Wool;
    Linen; Marble; Bronze; Silicone; Concrete; Carbon"""
)

PRODUCT_NOUNS = _items(
    """Chair; Table; Lamp; Keyboard; Mouse; Shirt; Shoes; Backpack; Bottle; Mug; Watch; Headphones;
    Speaker; Desk; Sofa; Jacket; Hat; Gloves; Wallet; Bag; Knife; Pan; Bike; Ball; Towel; Pillow; Clock;
    Car; Computer; Phone Case"""
)

EXPRESSIONS = _items(
    """datum.value > 10; datum.price * 1.2; status == 'active'; count >= 3; event.type === 'click';
    width / 2; item.total > 100 && item.paid; branch == 'main'; x < 0 ? -x : x; length(data) > 0;
    datum.category === 'A'; score >= 0.5; year(datum.date) == 2024; !disabled; env == 'production'"""
)

IDENTIFIERS = _items(
    """total; price; amount; category; created_at; updated_at; order_id; customer_id; status; count;
    value; label; name; date; x; y; width; height; color; size; index; score; rank; region; quantity;
    unitPrice; totalSales; startDate; endDate; userName; itemCount; isActive; parentId; groupKey"""
)

CSS_STYLES = _items(
    """color: #333; margin: 0 auto; padding: 8px 16px; display: none; font-weight: bold; text-align:
    center; width: 100%; float: left; border: 1px solid #ccc; background-color: #f5f5f5; font-size:
    14px; line-height: 1.5; position: relative; visibility: hidden"""
)

EVENT_HANDLERS = _items(
    """return false; toggle(this); validate(this.form); showDetails(event); this.select();
    submitForm(); trackClick('nav'); highlight(this, true); hideTooltip(); window.print()"""
)

CHARSETS = _items("""UTF-8; ISO-8859-1; UTF-16; windows-1252; US-ASCII; Shift_JIS; GB2312""")

CONTENT_ENCODINGS = _items("""base64; quoted-printable; 7bit; 8bit; binary; gzip""")

CRON_EXPRESSIONS = _items(
    """0 3 * * *; */15 * * * *; 0 0 * * 0; 30 2 * * 1-5; 0 */6 * * *; 0 9 1 * *; 45 23 * * 5;
    0 12 * * *; 5 4 * * sun; 0 0 1 1 *"""
)

GLOBS = _items(
    """src/**/*.py; **/*.js; docs/**; tests/; *.md; build/**; lib/**/*.ts; **/*.yml; dist/;
    config/*.json; scripts/*.sh; assets/**/*.png; vendor/**; **/node_modules/**; app/**/*.go"""
)

DURATIONS = _items(
    """30 days; 1 week; 2 hours; 15 minutes; 1 month; 90 days; 1h; 30m; 7d; 12h; 10 mins; 1 year"""
)

GITHUB_ACTIONS = _items(
    """actions/checkout@v4; actions/setup-python@v5; actions/setup-node@v4; actions/cache@v4;
    actions/upload-artifact@v4; actions/download-artifact@v4; docker/build-push-action@v5;
    github/codeql-action/analyze@v3; peaceiris/actions-gh-pages@v3"""
)

RUNNERS = _items(
    """ubuntu-latest; ubuntu-22.04; windows-latest; macos-latest; macos-14; self-hosted;
    ubuntu-24.04; windows-2022"""
)

SHELLS = _items("""bash; sh; pwsh; powershell; cmd; zsh; python""")

NAME_SUFFIXES = _items("""Jr.; Sr.; II; III; IV; PhD; MD; MBA""")

VEHICLE_MAKES = _items(
    """Toyota; Volkswagen; Ford; Honda; BMW; Mercedes-Benz; Audi; Hyundai; Kia; Nissan; Renault;
    Peugeot; Skoda; Volvo; Tesla; Mazda; Subaru; Fiat; Trek; Giant; Specialized; Yamaha"""
)

VEHICLE_MODELS = _items(
    """Corolla; Golf; Focus; Civic; 3 Series; C-Class; A4; Tucson; Sportage; Qashqai; Clio; 208;
    Octavia; XC60; Model 3; CX-5; Outback; Panda; Domane; Escape 2; Rockhopper; MT-07"""
)

PACKAGES = _items(
    """requests; numpy; pandas; django; flask; pytest; lodash; express; react; typescript; axios;
    curl; git; make; jq; libssl-dev; openjdk-17-jdk; build-essential; postgresql-client; wget"""
)

CLI_ARGUMENTS = _items(
    """--verbose; -v; --no-cache; --output dist; -j 4; --release; --config config.yml; --dry-run;
    -q; --force; --timeout 60; --tag latest"""
)

DATA_FORMATS = _items("""json; csv; xml; yaml; parquet; html; pdf; markdown; txt; avro""")

XPATHS = _items(
    """/root/item[1]; //book[@id='b1']/title; /order/lines/line; //*[@type='primary']; /a/b/c;
    //customer/name; count(//item) > 0; /doc/section[2]/para"""
)

ALGORITHMS = _items("""SHA-256; SHA-512; RSA-2048; AES-256-GCM; Ed25519; ECDSA-P256; HMAC-SHA256; RS256""")

PLATFORMS = _items("""linux/amd64; linux/arm64; windows/amd64; darwin/arm64; linux; windows; macos""")

CONNECTION_STRINGS = _items(
    """postgresql://app:secret@db.example.com:5432/app; mysql://root@localhost:3306/shop;
    redis://cache.internal:6379/0; mongodb://mongo.example.org:27017/events;
    sqlite:///var/data/app.db"""
)
