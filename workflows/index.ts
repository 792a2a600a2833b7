export { shipmentWorkflow } from './shipment.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { orphanSweepWorkflow } from './sweep.js';
export type { ShipmentWorkflowInput, ShipmentWorkflowResult, StoppedRun } from './shipment-types.js';
export type { PurchaseOutcome, VoidOutcome } from './definitions.js';
export type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook-delivery.js';
