"""The closed list of error codes a client may branch on (GraphQL `extensions.code`, the REST body's
`code`, the OpenAPI document's enum). A code is stable: a sentence may be reworded, a code is not.
The first block are the kinds' defaults (app/core/errors.py) and the transport's own codes; the
others name one refusal each. The engine's codes (app/generation/errors.py) are listed here too:
the engine cannot import the core, and tests/core/test_error_codes.py checks both lists agree."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # kinds (a refusal with no finer code) and the transport's codes
    BAD_REQUEST = "bad_request"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    GONE = "gone"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    INVALID = "invalid"
    TOO_MANY_REQUESTS = "too_many_requests"
    BUSY = "busy"
    DATABASE_UNAVAILABLE = "database_unavailable"
    STORAGE_UNAVAILABLE = "storage_unavailable"
    INTERNAL = "internal"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    GRAPHQL_VALIDATION = "graphql_validation"
    PATH_NOT_FOUND = "path_not_found"
    RANGE_NOT_SATISFIABLE = "range_not_satisfiable"
    REQUEST_TIMEOUT = "request_timeout"
    HEADERS_TOO_LARGE = "headers_too_large"

    # the request itself (REST door, pydantic validation of an input)
    REQUIRED = "required"
    UNKNOWN_FIELD = "unknown_field"
    INVALID_VALUE = "invalid_value"
    INVALID_PARAMETER = "invalid_parameter"
    BODY_REQUIRED = "body_required"
    INVALID_JSON = "invalid_json"
    BODY_NOT_OBJECT = "body_not_object"
    NUL_CHARACTER = "nul_character"
    FILE_TOO_LARGE = "file_too_large"
    NOTHING_TO_UPDATE = "nothing_to_update"

    # authentication
    INVALID_CREDENTIALS = "invalid_credentials"
    LOGIN_THROTTLED = "login_throttled"
    ONE_TIME_CODE_REQUIRED = "one_time_code_required"
    INVALID_ONE_TIME_CODE = "invalid_one_time_code"
    TOKEN_INVALID = "token_invalid"
    TOKEN_EXPIRED = "token_expired"
    TOKEN_REVOKED = "token_revoked"
    ACCOUNT_INACTIVE = "account_inactive"
    TENANT_INACTIVE = "tenant_inactive"
    LINK_INVALID = "link_invalid"
    LINK_EXPIRED = "link_expired"
    INVITATION_NOT_FOUND = "invitation_not_found"
    INVITATION_EXPIRED = "invitation_expired"
    INVALID_EXPIRY = "invalid_expiry"
    INVALID_TOKEN_SCOPE = "invalid_token_scope"

    # authorization
    ROLE_FORBIDDEN = "role_forbidden"
    PROJECT_ROLE_FORBIDDEN = "project_role_forbidden"
    TOKEN_SCOPE_FORBIDDEN = "token_scope_forbidden"
    OTHER_TENANT_FORBIDDEN = "other_tenant_forbidden"
    OWN_ROLE = "own_role"
    OWN_ACCOUNT = "own_account"
    OWN_TENANT = "own_tenant"
    LAST_ADMIN = "last_admin"

    # accounts, tenants, settings
    USERNAME_TAKEN = "username_taken"
    EMAIL_TAKEN = "email_taken"
    TENANT_NAME_TAKEN = "tenant_name_taken"
    USER_NOT_ACTIVATED = "user_not_activated"
    USER_INACTIVE = "user_inactive"
    PASSWORD_TOO_SHORT = "password_too_short"
    PASSWORD_TOO_LONG = "password_too_long"
    PASSWORD_UNCHANGED = "password_unchanged"
    WRONG_PASSWORD = "wrong_password"
    TWO_FACTOR_ENABLED = "two_factor_enabled"
    TWO_FACTOR_NOT_ENABLED = "two_factor_not_enabled"
    NO_ENROLMENT = "no_enrolment"
    INVALID_BASE64 = "invalid_base64"
    INVALID_IMAGE = "invalid_image"
    IMAGE_TOO_LARGE = "image_too_large"
    EMPTY_FILE = "empty_file"

    # rows that do not exist or are not the caller's
    PROJECT_NOT_FOUND = "project_not_found"
    DATASET_NOT_FOUND = "dataset_not_found"
    SCHEMA_NOT_FOUND = "schema_not_found"
    CONSTRAINT_SET_NOT_FOUND = "constraint_set_not_found"
    USER_NOT_FOUND = "user_not_found"
    MEMBER_NOT_FOUND = "member_not_found"
    TENANT_NOT_FOUND = "tenant_not_found"
    INTEGRATION_NOT_FOUND = "integration_not_found"
    NOTIFICATION_NOT_FOUND = "notification_not_found"
    API_TOKEN_NOT_FOUND = "api_token_not_found"
    DELIVERY_NOT_FOUND = "delivery_not_found"
    FILE_NOT_FOUND = "file_not_found"

    # datasets, previews, downloads, exports
    INVALID_RECORD_COUNT = "invalid_record_count"
    INVALID_COUNT = "invalid_count"
    UNKNOWN_FORMAT = "unknown_format"
    NO_FORMATS = "no_formats"
    INVALID_STATUS = "invalid_status"
    CONSTRAINT_SET_SCHEMA_MISMATCH = "constraint_set_schema_mismatch"
    ROOT_MISMATCH = "root_mismatch"
    ROOT_UNSATISFIABLE = "root_unsatisfiable"
    DATASET_NOT_QUEUED = "dataset_not_queued"
    DATASET_NOT_COMPLETED = "dataset_not_completed"
    DATASET_EXPIRED = "dataset_expired"
    RENDERING_UNAVAILABLE = "rendering_unavailable"
    GENERATION_FAILED = "generation_failed"

    # the schema library
    SCHEMA_IN_USE = "schema_in_use"
    CONSTRAINT_SET_IN_USE = "constraint_set_in_use"
    SCHEMA_REFUSED = "schema_refused"

    # integrations and webhooks
    UNSAFE_DESTINATION = "unsafe_destination"
    NOT_APPLICABLE = "not_applicable"
    INTEGRATION_NOT_S3 = "integration_not_s3"
    INTEGRATION_DISABLED = "integration_disabled"
    NOT_A_WEBHOOK_DELIVERY = "not_a_webhook_delivery"

    # the generation engine (app/generation/errors.py)
    INVALID_SCHEMA = "invalid_schema"
    SCHEMA_TOO_LARGE = "schema_too_large"
    INVALID_RULE = "invalid_rule"
    INVALID_PARAMS = "invalid_params"
    UNSATISFIABLE = "unsatisfiable"
    COVERAGE_TOO_LARGE = "coverage_too_large"
