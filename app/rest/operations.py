"""Stored GraphQL operations the REST facade runs. Selection sets are the REST response shapes,
so a field added here appears in both styles; every operation is validated when the app loads."""

from __future__ import annotations

USER = "id username email display_name role tenant_id is_active two_factor_enabled theme locale created_at last_login_at invitation_pending"
USER_WITH_PROJECTS = USER + " projects { project_id name description tags created_at }"
PROJECT_SUMMARY = "project_id name description tags tenant_id created_by created_at updated_at"
PROJECT_DETAIL = (
    PROJECT_SUMMARY
    + " my_role members { user_id role added_at added_by user { id username display_name email role } }"
    + " schemas { schema_id name type version default_root created_at }"
    + " datasets { dataset_id name schema_id record_count status progress created_at finished_at }"
)
TENANT = "tenant_id name is_active max_record_count max_concurrent_generations retention_days created_at updated_at"
AUDIT = "id at actor_id actor_username role tenant_id action project_id target_type target_id details ip success"
API_TOKEN = "token_id name prefix created_at last_used_at expires_at"

LOGIN = "mutation($username: String!, $password: String!, $otp: String) { login(username: $username, password: $password, otp: $otp) { access_token token_type expires_in } }"
ME = f"query {{ me {{ {USER_WITH_PROJECTS} }} }}"
LOGOUT = "mutation { logout { ok detail } }"

CREATE_USER = f"mutation($input: UserCreateInput!) {{ create_user(input: $input) {{ {USER} invitation_token invitation_url }} }}"
INVITE_USER = f"mutation($input: UserInviteInput!) {{ invite_user(input: $input) {{ {USER} invitation_token invitation_url }} }}"
USERS = (
    "query($q: String, $role: Role, $is_active: Boolean, $tenant_id: Int, $limit: Int!, $offset: Int!) {"
    " users(q: $q, role: $role, is_active: $is_active, tenant_id: $tenant_id, limit: $limit, offset: $offset)"
    f" {{ total items {{ {USER} }} }} }}"
)
USER_DETAIL = f"query($user_id: Int!) {{ user(user_id: $user_id) {{ {USER_WITH_PROJECTS} }} }}"
UPDATE_USER = f"mutation($user_id: Int!, $input: UserUpdateInput!) {{ update_user(user_id: $user_id, input: $input) {{ {USER} }} }}"
SETUP_PASSWORD = f"mutation($input: SetupPasswordInput!) {{ setup_password(input: $input) {{ {USER} }} }}"

CREATE_PROJECT = f"mutation($input: ProjectCreateInput!) {{ create_project(input: $input) {{ {PROJECT_SUMMARY} }} }}"
PROJECTS = (
    "query($q: String, $tag: String, $tenant_id: Int, $limit: Int!, $offset: Int!) {"
    " projects(q: $q, tag: $tag, tenant_id: $tenant_id, limit: $limit, offset: $offset)"
    f" {{ total items {{ {PROJECT_SUMMARY} }} }} }}"
)
PROJECT = f"query($project_id: Int!) {{ project(project_id: $project_id) {{ {PROJECT_DETAIL} }} }}"
UPDATE_PROJECT = f"mutation($project_id: Int!, $input: ProjectUpdateInput!) {{ update_project(project_id: $project_id, input: $input) {{ {PROJECT_DETAIL} }} }}"
DELETE_PROJECT = "mutation($project_id: Int!) { delete_project(project_id: $project_id) { deleted id } }"
ADD_MEMBER = f"mutation($project_id: Int!, $input: MemberAddInput!) {{ add_project_member(project_id: $project_id, input: $input) {{ {PROJECT_DETAIL} }} }}"
REMOVE_MEMBER = f"mutation($project_id: Int!, $input: MemberRemoveInput!) {{ remove_project_member(project_id: $project_id, input: $input) {{ {PROJECT_DETAIL} }} }}"

TENANTS = f"query($limit: Int!, $offset: Int!) {{ tenants(limit: $limit, offset: $offset) {{ total items {{ {TENANT} }} }} }}"
TENANT_DETAIL = f"query($tenant_id: Int!) {{ tenant(tenant_id: $tenant_id) {{ {TENANT} }} }}"
CREATE_TENANT = f"mutation($input: TenantCreateInput!) {{ create_tenant(input: $input) {{ {TENANT} admin_user_id admin_username }} }}"
UPDATE_TENANT = f"mutation($tenant_id: Int!, $input: TenantUpdateInput!) {{ update_tenant(tenant_id: $tenant_id, input: $input) {{ {TENANT} }} }}"

AUDIT_LOGS = (
    "query($action: String, $actor_id: Int, $role: String, $project_id: Int, $start_date: String,"
    " $end_date: String, $tenant_id: Int, $limit: Int!, $offset: Int!) {"
    " audit_logs(action: $action, actor_id: $actor_id, role: $role, project_id: $project_id,"
    " start_date: $start_date, end_date: $end_date, tenant_id: $tenant_id, limit: $limit, offset: $offset)"
    f" {{ total items {{ {AUDIT} }} }} }}"
)

API_TOKENS = f"query {{ api_tokens {{ {API_TOKEN} }} }}"
CREATE_API_TOKEN = f"mutation($input: ApiTokenCreateInput!) {{ create_api_token(input: $input) {{ {API_TOKEN} token }} }}"
REVOKE_API_TOKEN = "mutation($token_id: Int!) { revoke_api_token(token_id: $token_id) { deleted id } }"

SCHEMA = "schema_id name type version filename size_bytes sha256 roots default_root field_count tenant_id created_at created_by project_ids"
CONSTRAINT_SET = "constraint_id name description schema_id root rules tenant_id created_by created_at updated_at"

UPLOAD_SCHEMA = f"mutation($input: SchemaUploadInput!) {{ upload_schema(input: $input) {{ {SCHEMA} }} }}"
SCHEMAS = (
    "query($project_id: Int, $q: String, $limit: Int!, $offset: Int!) {"
    f" schemas(project_id: $project_id, q: $q, limit: $limit, offset: $offset) {{ total items {{ {SCHEMA} }} }} }}"
)
SCHEMA_DETAIL = f"query($schema_id: Int!) {{ schema(schema_id: $schema_id) {{ {SCHEMA} }} }}"
SCHEMA_REPR = "query($schema_id: Int!, $root: String) { schema_repr(schema_id: $schema_id, root: $root) }"
DELETE_SCHEMA = "mutation($schema_id: Int!) { delete_schema(schema_id: $schema_id) { deleted id } }"
PREVIEW = ("query($schema_id: Int!, $constraint_set_id: Int, $params: JSON, $count: Int, $format: String) {"
           " preview(schema_id: $schema_id, constraint_set_id: $constraint_set_id, params: $params, count: $count,"
           " format: $format) { schema_id format media_type count seed content elapsed_ms } }")
ADD_SCHEMA = f"mutation($project_id: Int!, $input: SchemaLinkInput!) {{ add_project_schema(project_id: $project_id, input: $input) {{ {PROJECT_DETAIL} }} }}"

CATEGORIES = "query { constraint_categories { name description types example } }"
CREATE_CONSTRAINT_SET = f"mutation($input: ConstraintSetCreateInput!) {{ create_constraint_set(input: $input) {{ {CONSTRAINT_SET} }} }}"
CONSTRAINT_SETS = (
    "query($schema_id: Int, $limit: Int!, $offset: Int!) {"
    f" constraint_sets(schema_id: $schema_id, limit: $limit, offset: $offset) {{ total items {{ {CONSTRAINT_SET} }} }} }}"
)
CONSTRAINT_SET_DETAIL = f"query($constraint_id: Int!) {{ constraint_set(constraint_id: $constraint_id) {{ {CONSTRAINT_SET} }} }}"
UPDATE_CONSTRAINT_SET = f"mutation($constraint_id: Int!, $input: ConstraintSetUpdateInput!) {{ update_constraint_set(constraint_id: $constraint_id, input: $input) {{ {CONSTRAINT_SET} }} }}"
DELETE_CONSTRAINT_SET = "mutation($constraint_id: Int!) { delete_constraint_set(constraint_id: $constraint_id) { deleted id } }"

DATASET = (
    "dataset_id name project_id schema_id constraint_set_id record_count types params status progress"
    " records_generated error attempt created_by created_at started_at finished_at"
    " files { format file_index records size_bytes sha256 }"
)
CREATE_DATASET = f"mutation($input: DatasetCreateInput!) {{ create_dataset(input: $input) {{ {DATASET} }} }}"
DATASETS = (
    "query($project_id: Int, $status: String, $limit: Int!, $offset: Int!) {"
    f" datasets(project_id: $project_id, status: $status, limit: $limit, offset: $offset) {{ total items {{ {DATASET} }} }} }}"
)
DATASET_DETAIL = f"query($dataset_id: Int!) {{ dataset(dataset_id: $dataset_id) {{ {DATASET} }} }}"
START_DATASET = f"mutation($dataset_id: Int!) {{ start_dataset(dataset_id: $dataset_id) {{ {DATASET} }} }}"
DELETE_DATASET = f"mutation($dataset_id: Int!) {{ delete_dataset(dataset_id: $dataset_id) {{ {DATASET} }} }}"

NOTIFICATION = "notification_id type title message data created_at read_at is_read"
NOTIFICATIONS = (
    "query($unread_only: Boolean!, $limit: Int!, $offset: Int!) {"
    f" notifications(unread_only: $unread_only, limit: $limit, offset: $offset) {{ total items {{ {NOTIFICATION} }} }} }}"
)
UNREAD_COUNT = "query { unread_notification_count { count } }"
MARK_READ = f"mutation($notification_id: Int!) {{ mark_notification_read(notification_id: $notification_id) {{ {NOTIFICATION} }} }}"

USER_SETTINGS = "user_id username email display_name theme locale avatar_url two_factor_enabled notifications"
TWO_FACTOR = "enabled detail secret otpauth_uri recovery_codes"
SETTINGS = f"query {{ settings {{ {USER_SETTINGS} }} }}"
UPDATE_SETTINGS = f"mutation($input: SettingsUpdateInput!) {{ update_settings(input: $input) {{ {USER_SETTINGS} }} }}"
UPLOAD_AVATAR = f"mutation($input: AvatarUploadInput!) {{ upload_avatar(input: $input) {{ {USER_SETTINGS} }} }}"
CHANGE_PASSWORD = ("mutation($input: PasswordChangeInput!) { change_password(input: $input)"
                   " { ok detail access_token token_type expires_in } }")
CHANGE_EMAIL = f"mutation($input: EmailChangeInput!) {{ change_email(input: $input) {{ {USER_SETTINGS} }} }}"
UPDATE_NOTIFICATIONS = (f"mutation($input: NotificationPrefsInput!) {{ update_notification_preferences(input: $input)"
                        f" {{ {USER_SETTINGS} }} }}")
ENABLE_2FA = f"mutation($input: TwoFactorEnableInput!) {{ enable_2fa(input: $input) {{ {TWO_FACTOR} }} }}"
DISABLE_2FA = f"mutation($input: TwoFactorDisableInput!) {{ disable_2fa(input: $input) {{ {TWO_FACTOR} }} }}"
DELETE_ACCOUNT = "mutation($input: AccountDeleteInput!) { delete_account(input: $input) { deleted id } }"

INTEGRATION = ("integration_id name provider config secret_fields events is_active consecutive_failures"
               " disabled_reason tenant_id created_by created_at updated_at")
DELIVERY = ("delivery_id integration_id webhook_id event_type status attempts next_attempt_at last_status_code"
            " last_error created_at finished_at payload"
            " attempt_log { attempt at status_code error response_body duration_ms }")
PROVIDERS = "query { integration_providers { name description fields { name type required secret description } } }"
INTEGRATIONS = (f"query($limit: Int!, $offset: Int!) {{ integrations(limit: $limit, offset: $offset)"
                f" {{ total items {{ {INTEGRATION} }} }} }}")
CREATE_INTEGRATION = (f"mutation($input: IntegrationCreateInput!) {{ create_integration(input: $input)"
                      f" {{ {INTEGRATION} signing_secret }} }}")
UPDATE_INTEGRATION = (f"mutation($integration_id: Int!, $input: IntegrationUpdateInput!) {{"
                      f" update_integration(integration_id: $integration_id, input: $input)"
                      f" {{ {INTEGRATION} signing_secret }} }}")
DELETE_INTEGRATION = ("mutation($integration_id: Int!) { delete_integration(integration_id: $integration_id)"
                      " { deleted id } }")
TEST_INTEGRATION = ("mutation($integration_id: Int!) { test_integration(integration_id: $integration_id)"
                    " { ok detail status_code duration_ms delivery_id } }")
DELIVERIES = (f"query($integration_id: Int!, $limit: Int!, $offset: Int!) {{ integration_deliveries("
              f"integration_id: $integration_id, limit: $limit, offset: $offset) {{ total items {{ {DELIVERY} }} }} }}")
REDELIVER = (f"mutation($integration_id: Int!, $delivery_id: Int!) {{ redeliver_webhook("
             f"integration_id: $integration_id, delivery_id: $delivery_id) {{ {DELIVERY} }} }}")

OBJECT_EXPORT = ("export_id dataset_id integration_id status error bucket formats"
                 " objects { key format file_index records size_bytes sha256 } created_by created_at finished_at")
EXPORT_OBJECTSTORE = (f"mutation($dataset_id: Int!, $input: ObjectExportInput!) {{ export_dataset_objectstore("
                      f"dataset_id: $dataset_id, input: $input) {{ {OBJECT_EXPORT} }} }}")
