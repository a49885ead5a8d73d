"""The REST route table: one row per documented path of the interface specification.
Adding a documented path means adding one row here. A row names its stored operation
(app/rest/operations/*.graphql) and the authz Action the service checks; the response body is
the operation's single top-level field, and the docs' "who may call" is derived from the action."""

from __future__ import annotations

from app.core.auth import payloads as auth_payloads
from app.core.authz import Action
from app.core.datasets import payloads as dataset_payloads
from app.core.datasets.coverage import CoveragePlanRequest
from app.core.datasets.models import DatasetStatus
from app.core.datasets.preview import PreviewRequest
from app.core.integrations import payloads as integrations_payloads
from app.core.library import payloads as library_payloads
from app.core.models import Role
from app.core.notifications import payloads as notifications_payloads
from app.core.projects import payloads as projects_payloads
from app.core.storage.files import COVERAGE, LABELS
from app.core.tenants import payloads as tenants_payloads
from app.core.users import payloads as users_payloads
from app.generation.output_formats import FORMAT_NAMES
from app.graphql.paging import DEFAULT_LIMIT, MAX_LIMIT
from app.rest.operations import op
from app.rest.route import Param, Route, id_param

PAGE = (
    Param("limit", "int", f"Page size (1-{MAX_LIMIT})", DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT),
    Param("offset", "int", "Rows to skip", 0, minimum=0),
)
ROLE = Param("role", "str", choices=tuple(r.value for r in Role))

# one row per line reads as the table it is, so the formatter leaves it alone
# fmt: off
ROUTES: tuple[Route, ...] = (
    # Authentication and current user
    Route("POST", "/users/token", "Log in (form-encoded username and password)", "Authentication", op("Login"),
          form=auth_payloads.LoginForm, auth=False, errors=(400, 401, 429)),
    Route("GET", "/users/me", "The current user with their projects", "Authentication", op("Me")),
    Route("GET", "/users/logout", "Revoke the token used for this request", "Authentication", op("Logout")),
    # Users
    Route("POST", "/users/create", "Create a user (invitation when no password is given)", "Users",
          op("CreateUser"), body=users_payloads.UserCreate, status=201, action=Action.USER_CREATE,
          errors=(400, 403, 404, 409, 422)),
    Route("POST", "/users/invite", "Invite a user (returns a one-time invitation token)", "Users",
          op("InviteUser"), body=users_payloads.UserInvite, status=201, action=Action.USER_INVITE,
          errors=(400, 403, 409, 422)),
    Route("POST", "/users/setup-password", "Set a password from an invitation token", "Users",
          op("SetupPassword"), body=users_payloads.SetupPassword, auth=False, errors=(400, 404, 422)),
    Route("GET", "/users", "Search users in the caller's tenant", "Users", op("Users"), paged=True,
          query=(Param("q", "str", "Matches username, email or display name"), ROLE,
                 Param("is_active", "bool"), id_param("tenant_id", "SuperUser only"), *PAGE),
          action=Action.USER_LIST, errors=(403, 422)),
    Route("GET", "/users/{user_id}", "User details", "Users", op("UserDetail"), action=Action.USER_READ_OTHER,
          errors=(403, 404)),
    Route("PATCH", "/users/{user_id}", "Change role, activate or deactivate", "Users", op("UpdateUser"),
          body=users_payloads.UserUpdate, action=Action.USER_UPDATE, errors=(400, 403, 404, 409, 422)),
    # Projects
    Route("POST", "/projects/create", "Create a project", "Projects", op("CreateProject"),
          body=projects_payloads.ProjectCreate, status=201, action=Action.PROJECT_CREATE, errors=(400, 403, 404, 422)),
    Route("GET", "/projects", "Projects accessible to the caller", "Projects", op("Projects"), paged=True,
          query=(Param("q", "str", "Name contains"), Param("tag", "str"), id_param("tenant_id", "SuperUser only"),
                 *PAGE), errors=(422,)),
    Route("GET", "/projects/{project_id}", "Project details: members, schemas, datasets", "Projects",
          op("Project"), action=Action.PROJECT_READ, errors=(404,)),
    Route("PUT", "/projects/{project_id}", "Update name, description, tags", "Projects", op("UpdateProject"),
          body=projects_payloads.ProjectUpdate, action=Action.PROJECT_UPDATE, errors=(400, 403, 404, 422)),
    Route("DELETE", "/projects/{project_id}", "Delete a project", "Projects", op("DeleteProject"),
          action=Action.PROJECT_DELETE, errors=(403, 404)),
    Route("POST", "/projects/{project_id}/add-user", "Add a member (role view, edit or owner)", "Projects",
          op("AddMember"), body=projects_payloads.MemberAdd, action=Action.PROJECT_MANAGE_MEMBERS,
          errors=(400, 403, 404, 422)),
    Route("POST", "/projects/{project_id}/remove-user", "Remove a member", "Projects", op("RemoveMember"),
          body=projects_payloads.MemberRemove, action=Action.PROJECT_MANAGE_MEMBERS, errors=(400, 403, 404)),
    Route("POST", "/projects/{project_id}/add-schema", "Link a schema to the project", "Projects", op("AddSchema"),
          body=library_payloads.SchemaLink, action=Action.PROJECT_LINK_SCHEMA, errors=(400, 403, 404, 422)),
    # Schemas
    Route("POST", "/schemas", "Upload an XSD or JSON Schema (multipart part `file`, or JSON {name, content})",
          "Schemas", op("UploadSchema"), body=library_payloads.SchemaUpload, multipart=True, status=201,
          action=Action.SCHEMA_UPLOAD, errors=(400, 404, 413, 415, 422)),
    Route("GET", "/schemas", "Schemas in the tenant", "Schemas", op("Schemas"), paged=True,
          query=(id_param("project_id", "Only schemas linked to this project"), Param("q", "str", "Name contains"),
                 *PAGE), errors=(404, 422)),
    Route("GET", "/schemas/{schema_id}", "Schema details", "Schemas", op("SchemaDetail"), errors=(404,)),
    Route("GET", "/schemas/{schema_id}/repr", "Field representation for building constraints", "Schemas",
          op("SchemaRepr"), query=(Param("root", "str", "Record root: one of the schema's `roots` (GET /schemas/{schema_id}); another is 422"),),
          errors=(404, 422)),
    Route("DELETE", "/schemas/{schema_id}", "Delete a schema (and its constraint sets)", "Schemas",
          op("DeleteSchema"), action=Action.SCHEMA_DELETE_ANY, errors=(403, 404, 409)),
    Route("POST", "/schemas/{schema_id}/preview", "The first records (1-100) rendered in one format; nothing is "
          "stored", "Schemas", op("Preview"), body=PreviewRequest, body_variables=True, errors=(400, 404, 422)),
    Route("POST", "/schemas/{schema_id}/coverage-plan", "The coverage set (each | pairwise) a dataset "
          "would start with: its size and every target, before creating it; nothing is stored", "Schemas",
          op("CoveragePlan"), body=CoveragePlanRequest, body_variables=True, errors=(400, 404, 422)),
    # Constraint sets
    Route("GET", "/constraints/categories", "Value categories usable in rules", "Constraint sets",
          op("Categories")),
    Route("GET", "/constraints/rule-keys", "Every key a rule takes: its value's JSON Schema, what it does, "
          "the field types it applies to", "Constraint sets", op("RuleKeys")),
    Route("POST", "/constraints", "Create a constraint set", "Constraint sets", op("CreateConstraintSet"),
          body=library_payloads.ConstraintSetCreate, status=201, action=Action.CONSTRAINT_CREATE, errors=(400, 403, 404, 422)),
    Route("GET", "/constraints", "List constraint sets", "Constraint sets", op("ConstraintSets"),
          paged=True, query=(id_param("schema_id", "Only sets of this schema"), *PAGE), errors=(422,)),
    Route("GET", "/constraints/{constraint_id}", "Constraint set details", "Constraint sets",
          op("ConstraintSetDetail"), errors=(404,)),
    Route("PUT", "/constraints/{constraint_id}", "Update a constraint set", "Constraint sets",
          op("UpdateConstraintSet"), body=library_payloads.ConstraintSetUpdate, action=Action.CONSTRAINT_CHANGE_ANY,
          errors=(400, 403, 404, 422)),
    Route("DELETE", "/constraints/{constraint_id}", "Delete a constraint set", "Constraint sets",
          op("DeleteConstraintSet"), action=Action.CONSTRAINT_CHANGE_ANY, errors=(403, 404)),
    # Datasets and data
    Route("POST", "/datasets/create", "Create a dataset (triggers generation; not idempotent)", "Datasets",
          op("CreateDataset"), body=dataset_payloads.DatasetCreate, status=201, action=Action.DATASET_CREATE,
          errors=(400, 403, 404, 422)),
    Route("GET", "/datasets", "List datasets", "Datasets", op("Datasets"), paged=True,
          query=(id_param("project_id"), Param("status", "str", choices=tuple(s.value for s in DatasetStatus)),
                 *PAGE), errors=(404, 422)),
    Route("GET", "/datasets/generate/{dataset_id}", "Start generation of a queued dataset", "Datasets",
          op("StartDataset"), action=Action.DATASET_START, errors=(403, 404, 409)),
    Route("GET", "/datasets/{dataset_id}", "Dataset details including status", "Datasets", op("DatasetDetail"),
          action=Action.PROJECT_READ, errors=(404,)),
    Route("DELETE", "/datasets/{dataset_id}", "Delete (cancels a queued or running dataset; removes its files)",
          "Datasets", op("DeleteDataset"), action=Action.DATASET_DELETE, errors=(403, 404)),
    Route("POST", "/datasets/{dataset_id}/export-objectstore", "Upload the dataset's files to an s3 integration; "
          "returns the export record (status, object keys, checksums)", "Datasets", op("ExportObjectStore"),
          body=integrations_payloads.ObjectExportCreate, status=201, action=Action.DATASET_EXPORT,
          errors=(400, 403, 404, 409, 422)),
    Route("GET", "/data/{dataset_id}", "Download a dataset file (streamed; HTTP Range supported)", "Datasets",
          download=True, query=(Param("format", "str", "The file's format (labels: the invalid records' labels; "
                                      "coverage: the coverage set's report)", "json",
                                      choices=(*FORMAT_NAMES, LABELS, COVERAGE)),
                                Param("file_index", "int", "File of a multi-file dataset", 0, minimum=0),
                                Param("link", "str", "A signed link from the create_download_link mutation, "
                                      "instead of the Authorization header (5 minutes, this file only)")),
          action=Action.DATASET_DOWNLOAD, errors=(404, 409, 422)),
    # Notifications
    Route("GET", "/notifications/unread-count", "Count of unread notifications", "Notifications",
          op("UnreadCount")),
    Route("GET", "/notifications", "In-app notifications of the current user", "Notifications",
          op("Notifications"), paged=True, query=(Param("unread_only", "bool", "Only unread ones", False), *PAGE),
          errors=(422,)),
    Route("DELETE", "/notifications/{notification_id}", "Mark a notification read", "Notifications",
          op("MarkRead"), errors=(404,)),
    # Settings
    Route("GET", "/settings/tokens", "The caller's API tokens", "Settings", op("ApiTokens")),
    Route("POST", "/settings/tokens", "Create an API token (shown once)", "Settings", op("CreateApiToken"),
          body=auth_payloads.ApiTokenCreate, status=201, errors=(400, 422)),
    Route("DELETE", "/settings/tokens/{token_id}", "Revoke an API token", "Settings", op("RevokeApiToken"),
          errors=(404,)),
    Route("GET", "/settings", "The caller's settings", "Settings", op("Settings")),
    Route("PUT", "/settings", "Update profile (display_name, theme light|dark|system, locale)", "Settings",
          op("UpdateSettings"), body=users_payloads.SettingsUpdate, errors=(400, 422)),
    Route("POST", "/settings/avatar", "Upload an avatar (multipart part `file`: PNG, JPEG or WebP up to 2 MiB; "
          "stored as a 256x256 PNG at avatar_url)", "Settings", op("UploadAvatar"),
          body=users_payloads.AvatarUpload, multipart=True, errors=(400, 413, 415, 422)),
    Route("POST", "/settings/change_password", "Change password (earlier session tokens stop working; the "
          "answer carries a fresh token)", "Settings", op("ChangePassword"),
          body=users_payloads.PasswordChange, errors=(400, 403, 422)),
    Route("POST", "/settings/change_email", "Change email address (password required)", "Settings",
          op("ChangeEmail"), body=users_payloads.EmailChange, errors=(400, 403, 409, 422)),
    Route("POST", "/settings/notifications", "Notification preferences per event: {preferences: {event: "
          "{in_app, webhook}}}", "Settings", op("UpdateNotifications"),
          body=notifications_payloads.NotificationPrefsUpdate, errors=(400, 422)),
    Route("POST", "/settings/enable_2fa", "Two-factor: {} starts enrolment (secret + otpauth URI), {code} "
          "confirms it (recovery codes shown once)", "Settings", op("Enable2fa"),
          body=auth_payloads.TwoFactorEnable, errors=(400, 409, 422)),
    Route("POST", "/settings/disable_2fa", "Disable two-factor authentication (password and a code)", "Settings",
          op("Disable2fa"), body=auth_payloads.TwoFactorDisable, errors=(400, 403, 409, 422)),
    Route("POST", "/settings/delete", "Delete the account (deactivated and anonymised; audit rows stay)",
          "Settings", op("DeleteAccount"), body=users_payloads.AccountDelete, errors=(400, 403, 409)),
    # Audit logs
    Route("GET", "/audit/logs", "Audit records, newest first", "Audit", op("AuditLogs"), paged=True,
          query=(Param("action", "str", "Exact action or prefix (e.g. 'project')"), id_param("actor_id"),
                 Param("role", "str"), id_param("project_id"),
                 Param("start_date", "date", "ISO date or date-time (inclusive)"),
                 Param("end_date", "date", "ISO date or date-time (inclusive)"),
                 id_param("tenant_id", "SuperUser only"), *PAGE),
          action=Action.AUDIT_READ, errors=(403, 422)),
    # Tenants
    Route("GET", "/tenants", "Tenants visible to the caller (own tenant; all for a SuperUser)", "Tenants",
          op("Tenants"), paged=True, query=PAGE),
    Route("POST", "/tenants", "Create a tenant with its first Admin", "Tenants", op("CreateTenant"),
          body=tenants_payloads.TenantCreate, status=201, action=Action.TENANT_CREATE, errors=(400, 403, 409, 422)),
    Route("GET", "/tenants/{tenant_id}", "Tenant details", "Tenants", op("TenantDetail"),
          action=Action.TENANT_READ_ANY, errors=(403, 404)),
    Route("PUT", "/tenants/{tenant_id}", "Update tenant settings", "Tenants", op("UpdateTenant"),
          body=tenants_payloads.TenantUpdate, action=Action.TENANT_UPDATE, errors=(400, 403, 404, 409, 422)),
    # Integrations
    Route("GET", "/integrations/providers", "Available providers and their config fields (secret ones marked)",
          "Integrations", op("Providers")),
    Route("GET", "/integrations", "Configured integrations (secrets never returned)", "Integrations",
          op("Integrations"), paged=True, query=PAGE, action=Action.INTEGRATION_READ, errors=(403, 422)),
    Route("POST", "/integrations", "Create an integration (a webhook's signing secret is shown once)",
          "Integrations", op("CreateIntegration"), body=integrations_payloads.IntegrationCreate, status=201,
          action=Action.INTEGRATION_MANAGE, errors=(400, 403, 422)),
    Route("PUT", "/integrations/{integration_id}", "Update an integration (omitted secrets are kept)",
          "Integrations", op("UpdateIntegration"), body=integrations_payloads.IntegrationUpdate,
          action=Action.INTEGRATION_MANAGE, errors=(400, 403, 404, 422)),
    Route("DELETE", "/integrations/{integration_id}", "Remove an integration", "Integrations",
          op("DeleteIntegration"), action=Action.INTEGRATION_MANAGE, errors=(403, 404)),
    Route("POST", "/integrations/{integration_id}/test", "Test the connection (signed ping / bucket check)",
          "Integrations", op("TestIntegration"), action=Action.INTEGRATION_MANAGE, errors=(403, 404, 422)),
    Route("GET", "/integrations/{integration_id}/deliveries", "Webhook delivery log with every attempt",
          "Integrations", op("Deliveries"), paged=True, query=PAGE, action=Action.INTEGRATION_READ,
          errors=(403, 404, 422)),
    Route("POST", "/integrations/{integration_id}/deliveries/{delivery_id}/redeliver",
          "Redeliver an event (same webhook-id)", "Integrations", op("Redeliver"), status=202,
          action=Action.INTEGRATION_MANAGE, errors=(403, 404, 409, 422)),
)
# fmt: on
