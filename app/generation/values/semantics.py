"""The name table: which value category a field's name suggests, in which context. Data only;
`categories.py` reads it (`infer_field_category`). Design notes: docs/generation.md.

A rule matches a field when its `name` pattern matches the field's normalised name (lower snake
case; `$` text content takes its element's name) or the tail of that name (`billing_city` ->
`city`, whose stripped head `billing` then counts as the owner), and its context holds:
`owner` must match the owner (the stripped head, else the parent object's singular name: the
array `skills` of objects makes `skill` the owner of `skills[].name`), `sibling` must match the
name of some other field of the same object. Rules are tried in order, the first match wins.
Its categories are candidates, best first: the first one whose values meet the field's own
length and pattern facets is taken; when none does the field stays generic (schema facets
always win over a name)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NameRule:
    name: str  # regular expression, full match on the normalised name (or a tail of it)
    categories: tuple[str, ...]  # candidates, best first
    owner: str | None = None  # full match on the owner's name (singular), when given
    sibling: str | None = None  # full match on some sibling's normalised name, when given


def _rule(name: str, *categories: str, owner: str | None = None, sibling: str | None = None) -> NameRule:
    return NameRule(name, categories, owner, sibling)


# contexts, as regular expressions over names
PERSON = (
    r"(.*_)?(person|people|user|customer|client|employee|staff|member|author|contact|owner|holder|"
    r"patient|student|teacher|manager|applicant|candidate|guest|passenger|driver|recipient|sender|"
    r"buyer|seller|payer|payee|beneficiary|subscriber|attendee|speaker|participant|individual|"
    r"signatory|reviewer|assignee|reporter|maintainer|developer|contributor|creator|worker|"
    r"spouse|parent|child|doctor|physician|agent|traveller|traveler|tenant|landlord|insured|"
    r"policyholder|debtor|creditor|account_holder|card_holder|cardholder|emergency_contact)"
)
PERSON_FIELDS = (
    r"(.*_)?(e_?mail|email_address|phone|mobile|first_?name|last_?name|given_?name|family_?name|"
    r"surname|birth_?date|date_of_birth|dob|birthday|gender|middle_name)"
)
ADDRESS = r"(.*_)?(address|addr|location|place|residence|postal|billing|shipping|delivery|mailing)"
ADDRESS_FIELDS = (
    r"(.*_)?(city|town|zip|zip_?code|post_?code|postal_?code|street|street_?address|country|county)"
)
NAME_FIELDS = r"(.*_)?(first_?name|last_?name|given_?name|family_?name|surname|middle_?name|gender|sex)"
MONEY = (
    r"(.*_)?(amount|price|cost|fee|total|subtotal|money|balance|salary|wage|payment|charge|tax|"
    r"discount|budget|revenue|income|value_amount|monetary_amount|price_amount|line_extension_amount)"
)
MONEY_FIELDS = r"(.*_)?(amount|price|cost|fee|total|subtotal|balance|salary|wage|tax|unit_price)"
CARD = r"(.*_)?(card|credit_card|debit_card|payment_card|account|bank_account|payment_method)"
PAYMENT_CARD = r"(.*_)?(card|credit_card|debit_card|payment_card)"
PRODUCT = (
    r"(.*_)?(product|item|article|good|merchandise|offer|line_item|order_line|order_item|"
    r"catalog_item|catalogue_item|sku|variant|listing)"
)
COMPANY = (
    r"(.*_)?(company|organi[sz]ation|org|employer|business|vendor|supplier|manufacturer|publisher|"
    r"brand|merchant|firm|seller_party|party_legal_entity|bank|carrier|insurer|agency|institution)"
)

NAME_TABLE: tuple[NameRule, ...] = (
    # -- context first: the same word means different things in different places ------------
    _rule(
        r"name|title|label", "skill", owner=r"(.*_)?(skill|competenc[ey]|expertise|abilit[yi]|qualification)"
    ),
    _rule(r"name|title|label", "hobby", owner=r"(.*_)?(hobb[yi]|interest)"),
    _rule(r"name|title|label", "product_name", owner=PRODUCT),
    _rule(r"name|legal_name|registration_name|trading_name", "company", owner=COMPANY),
    _rule(r"name|title", "department", owner=r"(.*_)?(department|dept|division|team|business_unit|org_unit)"),
    _rule(r"name|title", "job_title", owner=r"(.*_)?(job|position|occupation|vacanc[yi])"),
    _rule(r"name", "country", "country_code", "country_code3", owner=r"(.*_)?(country|nation)"),
    _rule(
        r"code|iso|iso_code|alpha_?2|id|identification_code",
        "country_code",
        "country_code3",
        owner=r"(.*_)?country",
    ),
    _rule(r"alpha_?3|iso3", "country_code3", owner=r"(.*_)?country"),
    _rule(r"name", "city", owner=r"(.*_)?(city|town)"),
    _rule(r"name", "language_name", "language_code", owner=r"(.*_)?language"),
    _rule(r"code|iso|iso_code|id", "language_code", owner=r"(.*_)?(language|lang)"),
    _rule(r"code|iso|iso_code|id", "currency_code", owner=r"(.*_)?currency"),
    _rule(r"name", "file_name", owner=r"(.*_)?(file|attachment|document|upload|artifact|artefact)"),
    _rule(r"path|location", "file_path", owner=r"(.*_)?(file|attachment|document|upload|artifact|artefact)"),
    _rule(r"name|label|value", "tag", owner=r"(.*_)?(tag|keyword|topic)"),
    _rule(r"name|title|label", "category", owner=r"(.*_)?(category|categorie|genre|segment)"),
    _rule(r"name", "color_name", "hex_color", owner=r"(.*_)?colou?r"),
    _rule(r"name|holder|owner|holder_name|owner_name", "full_name", owner=CARD),
    _rule(r"name|full_name|display_name", "full_name", owner=PERSON),
    _rule(r"number|no|num|pan", "credit_card_number", owner=PAYMENT_CARD),
    _rule(r"cvv|cvc|code|security_code", "cvv", owner=PAYMENT_CARD),
    _rule(r"expiry|expiration|expires|exp|valid_thru|expiry_date", "card_expiry", owner=PAYMENT_CARD),
    _rule(r"number|no|num|iban", "iban", owner=r"(.*_)?(bank_account|financial_account|account)"),
    _rule(r"name", "full_name", sibling=PERSON_FIELDS),
    _rule(r"title|salutation|prefix", "name_prefix", sibling=NAME_FIELDS),
    _rule(r"image|picture|photo|avatar", "url", owner=PRODUCT + "|" + PERSON + "|(.*_)?(profile|account)"),
    _rule(
        r"code|unit|currency|currency_?id|currency_?code|cur|ccy|denomination",
        "currency_code",
        owner=MONEY,
    ),
    _rule(r"code|unit|cur|ccy|denomination", "currency_code", sibling=MONEY_FIELDS),
    _rule(r"state", "state", "state_abbr", owner=ADDRESS),
    _rule(r"state", "state", "state_abbr", sibling=ADDRESS_FIELDS),
    _rule(r"state", "status"),
    _rule(r"type", "http_method", owner=r"(http_)?(request|endpoint|route|operation)|http"),
    _rule(r"type", "mime_type", owner=r"(.*_)?(script|link|style|object|source|embed|attachment|media|file)"),
    _rule(r"recipient|to|cc|bcc", "email", owner=r"(.*_)?(email|mail|notification|recipient)"),
    # -- people ---------------------------------------------------------------------------
    _rule(r"e_?mail|email_address|mail|e_mail_address|.*_email|email_.*", "email"),
    _rule(r"first_?name|given_?name|fname|forename|vorname|prenom|middle_?name", "first_name"),
    _rule(r"last_?name|family_?name|surname|lname|nachname|nom|maiden_name", "last_name"),
    _rule(
        r"full_?name|customer_name|person_name|contact_name|display_name|author|author_name|"
        r"card_?holder(_name)?|account_?holder(_name)?|holder(_name)?|owner(_name)?|name_on_card|"
        r"beneficiary(_name)?|payee(_name)?|payer(_name)?|recipient(_name)?|sender(_name)?|"
        r"assignee|reporter|contact(_person)?|manager(_name)?|customer|client(_name)?|"
        r"employee(_name)?|patient(_name)?|(created|updated|modified|approved|reviewed|requested|"
        r"submitted|signed|assigned|deleted)_by|driver(_name)?|passenger(_name)?|guest(_name)?|"
        r"attendee|speaker|maintainer|developer|contributor|creator|signatory|supervisor|"
        r"teacher|student(_name)?|landlord|tenant_name|spouse|emergency_contact|insured|"
        r"policyholder|debtor|creditor|cardholder",
        "full_name",
    ),
    _rule(r"user_?name|login|handle|screen_name|nick_?name|nick|account_name|user_login", "username"),
    _rule(r"phone|phone_?number|tel|telephone|mobile|cell|fax|.*_phone|phone_.*", "phone"),
    _rule(
        r"job|job_?title|title_job|occupation|position|role_title|designation|profession|job_position",
        "job_title",
    ),
    _rule(r"name_?prefix|salutation|honorific", "name_prefix"),
    _rule(r"birth_?date|date_?of_?birth|dob|birthday", "date_of_birth"),
    _rule(r"gender|sex", "gender"),
    _rule(r"skill|skills|competenc(y|ies)|expertise|speciality|specialty|speciali[sz]ation", "skill"),
    _rule(r"hobby|hobbies|interest|interests", "hobby"),
    # -- places ---------------------------------------------------------------------------
    _rule(r"street|street_?address|address_?line_?1|address1|line1|addr", "street_address"),
    _rule(r"street_?name", "street_name"),
    _rule(r"house_?number|building_?number|street_?number", "building_number"),
    _rule(r"city|town|locality|municipality|ort|ville|district|suburb", "city"),
    _rule(r"province|region|county|prefecture|country_subentity|subdivision", "state"),
    _rule(r"state_?(code|abbr|abbreviation)|province_code|region_code", "state_abbr"),
    _rule(r"zip|zip_?code|post_?code|postal_?code|plz|postcode|postal_zone", "postcode"),
    _rule(r"alpha_?2|iso_?alpha_?2", "country_code"),
    _rule(r"alpha_?3|iso_?alpha_?3", "country_code3"),
    _rule(
        r"country_?code|country_?iso|iso_?country|country_?iso_?code|country_id|nationality_code",
        "country_code",
        "country_code3",
    ),
    _rule(
        r"country|nation|land|pays|country_?name|nationality|citizenship",
        "country",
        "country_code",
        "country_code3",
    ),
    _rule(r"lat|latitude", "latitude"),
    _rule(r"lng|lon|long|longitude", "longitude"),
    _rule(r"address|full_?address|postal_?address", "address"),
    _rule(r"time_?zone|tz|timezone_id|tz_name|olson|iana_time_?zone|zone_id", "timezone"),
    # -- business and money ---------------------------------------------------------------
    _rule(
        r"company|company_?name|organi[sz]ation|organi[sz]ation_name|org|org_name|employer|"
        r"business_?name|vendor|supplier|manufacturer|brand|publisher|merchant|firm|bank_name|"
        r"carrier|insurer|agency|legal_name|registration_name|trading_name|institution",
        "company",
    ),
    _rule(r"department|dept|department_name|division|team|business_unit", "department"),
    _rule(r"industry|sector", "industry"),
    _rule(r"product|product_?name|item_?name|article_?name|product_?title", "product_name"),
    _rule(r"sku|product_code|item_code|article_number|part_number|model_number", "sku"),
    _rule(r"category|categories|product_category|genre|segment", "category"),
    _rule(r"iban|bank_?account|account_iban", "iban"),
    _rule(r"bic|bic_?fi|any_?bic|swift|swift_?code|bic_code", "swift"),  # bicfi: ISO 20022
    _rule(r"credit_?card|card_?number|cc_?number|pan|card_no|card_num", "credit_card_number"),
    _rule(r"cvv|cvc|cvv2|cvc2|security_code|card_verification", "cvv"),
    _rule(r"expiry|expiration|exp_date|card_expiry|expiry_date|valid_thru", "card_expiry"),
    _rule(r"currency|currency_?code|ccy|currency_?id|currency_iso|document_currency_code", "currency_code"),
    _rule(r"isbn|isbn13", "isbn"),
    _rule(r"upc|upc_?a|upc_?code", "upc"),
    _rule(r"ean|ean13|barcode|gtin", "ean13"),
    _rule(r"catch_?phrase|slogan|tagline|motto", "catch_phrase"),
    _rule(r"unit|uom|unit_of_measure|unit_code|measure_unit|units", "unit"),
    # -- internet, software ---------------------------------------------------------------
    _rule(
        r"url|uri|website|homepage|home_page|web_?site|link|href|src|endpoint|webhook|callback|"
        r"redirect_uri|image_url|avatar|avatar_url|photo|photo_url|picture|logo|icon|thumbnail|"
        r"repository|repo|issue_tracker|documentation|docs|.*_url|.*_uri|url_.*",
        "url",
    ),
    _rule(r"domain|domain_?name|host|hostname|host_name|fqdn|server|server_name", "domain_name"),
    _rule(r"ip|ipv4|ip_?address|remote_?addr|client_?ip|ip_v4", "ipv4"),
    _rule(r"ipv6|ip_v6", "ipv6"),
    _rule(r"mac|mac_?address", "mac_address"),
    _rule(r"user_?agent|ua", "user_agent"),
    _rule(r"slug|permalink", "slug"),
    _rule(r"password|passwd|pwd|passphrase", "password"),
    _rule(
        r"token|access_?token|refresh_?token|api_?key|api_?token|auth_?token|secret|secret_?key|"
        r"client_?secret|session_?id|session_?token|bearer|nonce|csrf(_token)?|private_?key",
        "token",
    ),
    _rule(r"uuid|guid|uid", "uuid"),
    _rule(r"md5|md5_?hash|md5_?sum|md5_?checksum", "md5"),
    _rule(r"sha1|sha_1|sha1_?sum|git_?sha|commit|commit_?sha|commit_?id|commit_?hash|revision", "sha1"),
    _rule(r"sha256|sha_256|sha256_?sum", "sha256"),
    _rule(r"sha512|sha_512|sha512_?sum", "sha512"),
    _rule(
        r"hash|sha|checksum|digest|hash_?value|fingerprint|etag|content_?hash|file_?hash|integrity",
        "sha256",
        "sha1",
        "md5",
        "sha512",
    ),
    _rule(r"version|semver|app_?version|.*_version|version_.*|release", "semver"),
    _rule(r"json_?pointer|pointer|ptr", "json_pointer"),
    _rule(r"file_?path|filepath|path|file_location|local_path|.*_path", "file_path"),
    _rule(r"directory|dir|folder|working_?directory|workdir|cwd|.*_dir|.*_directory|.*_folder", "directory"),
    _rule(r"file_?name|filename|attachment|document_name", "file_name"),
    _rule(r"extension|file_?extension|ext", "file_extension"),
    _rule(r"mime|mime_?type|content_?type|media_?type|mime_code", "mime_type"),
    _rule(r"locale|culture|language_?tag|bcp47|hreflang|accept_language", "locale"),
    _rule(r"language_?code|lang|lang_?code|iso_language|language_id", "language_code"),
    _rule(r"language|spoken_language|mother_tongue|native_language", "language_name", "language_code"),
    _rule(r"license|licence|license_?id|licence_?id|spdx(_id)?|license_name", "license"),
    _rule(r"branch|branch_name|git_branch|target_branch|source_branch|base_branch|head_branch", "git_branch"),
    _rule(r"command|cmd|script|scripts|run|entrypoint|entry_point|exec|commands", "shell_command"),
    _rule(r"image|docker_image|container_image|base_image", "container_image"),
    _rule(r"method|http_method|verb|request_method", "http_method"),
    _rule(r"environment|env|deployment_environment|stage|tier", "environment"),
    _rule(r"expr|expression|test|condition|if|when|filter|predicate|formula", "expression"),
    _rule(
        r"signal|field|as|groupby|group_by|sort_by|order_by|key_field|column|column_name|field_name|"
        r"variable|var|property_name|attribute_name|module|function|method_name|package_name",
        "identifier",
    ),
    _rule(r"style|css|inline_style", "css_style"),
    _rule(
        r"on_?(click|dbl_?click|mouse_?[a-z]+|key_?[a-z]+|focus|blur|select|change|load|unload|submit|reset|"
        r"input|scroll|resize|error|abort)",
        "event_handler",
    ),
    _rule(r"secure|access_?key|secret_?access_?key|encrypted", "token"),
    _rule(r"pass|proxy_?pass", "password"),
    _rule(
        r"package|packages|dependency|requirement|apt_packages|cask|tap|extra|library|libraries|plugin",
        "package_name",
    ),
    _rule(r"args|arguments|argument|options|cli_args|extra_args|.*_arguments|.*_args", "cli_arguments"),
    _rule(r"file|.*_file|file_.*", "file_path"),
    _rule(r"readme|changelog|license_file", "file_name"),
    _rule(r"format|data_format|file_format|output_format|input_format", "data_format"),
    _rule(r"required|discriminator|symbol|property|depends_on|wait_for|needs", "identifier"),
    _rule(r"consumes|produces", "mime_type"),
    _rule(r"terms_of_service|tos|privacy_policy|issuer|name_qualifier|sp_name_qualifier|entity_id", "url"),
    _rule(r"x_?path|xpath_expression", "xpath"),
    _rule(r"dns_name|dns", "domain_name"),
    _rule(r"service_account|service_account_email", "email"),
    _rule(r"algorithm|alg|hash_algorithm|signature_algorithm|cipher", "algorithm"),
    _rule(r"platform|os|operating_system", "platform"),
    _rule(r"connection_?string|dsn|database_?url|jdbc_?url|db_url", "connection_string"),
    _rule(r"executable|binary|bin_path", "file_path"),
    _rule(r"classification", "category"),
    _rule(r"journal|publication|book_title|series|album|conference", "title"),
    _rule(
        r"use_case|limitation|technical_limitation|tradeoff|performance_tradeoff|mitigation_strategy|"
        r"benefit|harm|consideration|additional_context|rationale|justification|impact",
        "sentence",
    ),
    _rule(r"charset|encoding|character_set|char_set", "charset"),
    _rule(r"content_encoding|transfer_encoding", "content_encoding"),
    _rule(r"cron|cron_expression|schedule|cron_schedule", "cron"),
    _rule(
        r"include|exclude|includes|excludes|pattern|glob|paths_ignore|ignore|ignore_paths|exclude_paths|"
        r"include_paths|file_pattern|files",
        "glob",
    ),
    _rule(
        r"expire_in|expires_in|ttl|duration|retention|max_age|timeout|max_report_age|interval",
        "duration_text",
    ),
    _rule(r"uses|action", "github_action", owner=r"(.*_)?(step|job|run|parallel)"),
    _rule(r"runs_on|runner|agent|vm_image|pool_image", "runner"),
    _rule(r"shell", "shell_name"),
    _rule(r"name_suffix|suffix_name|generation_suffix", "name_suffix"),
    _rule(r"make|manufacturer_name", "vehicle_make", owner=r"(.*_)?(car|vehicle|bike|motorbike|truck|van)"),
    _rule(r"model|model_name", "vehicle_model", owner=r"(.*_)?(car|vehicle|bike|motorbike|truck|van)"),
    _rule(r"affiliation", "company"),
    _rule(r"alias", "username"),
    _rule(r"location", "city"),
    _rule(r"qualification|certification", "skill"),
    _rule(r"placeholder|hint|tooltip|prompt|help|help_text|alt|alt_text", "sentence", "title"),
    _rule(r"error|error_message|evalue|exception_message", "sentence"),
    _rule(r"bucket|namespace|project|group|channel|room|queue|topic_name|stream", "slug"),
    _rule(r"user|users|reviewer|reviewers|assignees|members", "username"),
    _rule(r"accept|accept_types|content_types", "mime_type"),
    # -- states and kinds of things -------------------------------------------------------
    _rule(r"status|.*_status|status_.*|lifecycle_state|phase|condition_status", "status"),
    _rule(r"role|user_role|access_level|permission_level|roles", "role"),
    _rule(r"priority|severity|urgency|importance", "priority"),
    _rule(r"license_?plate|licence_?plate|plate|registration_number", "license_plate"),
    # -- text -----------------------------------------------------------------------------
    _rule(r"colou?r|colou?r_?name|.*_colou?r|shade|hue", "color_name", "hex_color"),
    _rule(r"hex_?colou?r|colou?r_?hex|rgb|colou?r_?code", "hex_color"),
    _rule(r"word|keyword|keywords|tag|tags|hashtag|labels", "tag"),
    _rule(
        r"title|subject|headline|heading|caption|topic|summary_title|display_title",
        "title",
        "sentence",
    ),
    _rule(r"label|name|short_name", "label"),
    _rule(
        r"description|desc|comment|comments|note|notes|summary|remarks|message|details|reason|"
        r"explanation|instructions|feedback|review|answer|question|purpose|memo|annotation|"
        r".*_description|description_.*|.*_note|.*_comment|.*_message",
        "sentence",
        "title",
    ),
    _rule(
        r"body|text|content|article|abstract|bio|biography|about|story|paragraph",
        "paragraph",
        "sentence",
        "title",
    ),
    _rule(r"sentence", "sentence"),
)

# numeric fields (integer, number): categories shape values inside the field's range
NUMERIC_TABLE: tuple[NameRule, ...] = (
    _rule(r"age|age_years", "age"),
    _rule(r"lat|latitude", "latitude"),
    _rule(r"lng|lon|long|longitude", "longitude"),
    _rule(r"qty|quantity|count|num_items|units", "quantity"),
    _rule(r".*price.*|amount|.*_amount|total|subtotal|cost|fee|balance|salary|tax", "price"),
    _rule(r"year|.*_year|year_.*", "year"),
)

# dates and timestamps
TEMPORAL_TABLE: tuple[NameRule, ...] = (_rule(r"birth_?date|date_?of_?birth|dob|birthday", "date_of_birth"),)

# formats that name their category outright (the name is not read)
FORMAT_CATEGORY = {
    "email": "email",
    "idn-email": "email",
    "uri": "url",
    "iri": "url",
    "uuid": "uuid",
    "hostname": "domain_name",
    "idn-hostname": "domain_name",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "xsd:anyURI": "url",
    "json-pointer": "json_pointer",
}

# formats whose values a name-inferred category (a sentence, a city) still satisfies
NAME_FRIENDLY_FORMATS = frozenset(
    {
        "xsd:normalizedString",
        "xsd:token",
        "date",
        "date-time",
        "xsd:date",
        "xsd:dateTime",
    }
)
