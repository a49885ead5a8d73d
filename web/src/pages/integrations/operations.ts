// The integration screens' documents, shared by their parts (header actions, Active switch, forms).
import { graphql } from '../../gql';

export const ProvidersQuery = graphql(`
  query IntegrationProviders {
    integration_providers { name description fields { name type required secret description } }
  }
`);

export const IntegrationQuery = graphql(`
  query Integration($id: Int!) {
    integration(integration_id: $id) {
      integration_id name provider config secret_fields events is_active consecutive_failures disabled_reason
      created_by created_at updated_at
    }
  }
`);

export const UpdateIntegrationMutation = graphql(`
  mutation UpdateIntegration($id: Int!, $input: IntegrationUpdateInput!) {
    update_integration(integration_id: $id, input: $input) {
      integration_id name config events is_active consecutive_failures disabled_reason updated_at signing_secret
    }
  }
`);

export const TestIntegrationMutation = graphql(`
  mutation TestIntegration($id: Int!) {
    test_integration(integration_id: $id) { ok detail status_code duration_ms delivery_id }
  }
`);

export const DeleteIntegrationMutation = graphql(`
  mutation DeleteIntegration($id: Int!) {
    delete_integration(integration_id: $id) { deleted id }
  }
`);

export const DeliveriesQuery = graphql(`
  query IntegrationDeliveries($id: Int!, $limit: Int!, $offset: Int!) {
    integration_deliveries(integration_id: $id, limit: $limit, offset: $offset) {
      items {
        delivery_id webhook_id event_type status attempts next_attempt_at last_status_code last_error created_at finished_at
        attempt_log { attempt at status_code error response_body duration_ms }
      }
      total
    }
  }
`);

export const RedeliverMutation = graphql(`
  mutation RedeliverWebhook($id: Int!, $deliveryId: Int!) {
    redeliver_webhook(integration_id: $id, delivery_id: $deliveryId) { delivery_id webhook_id status }
  }
`);
