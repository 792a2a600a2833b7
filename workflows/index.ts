export { shipmentWorkflow } from './shipment.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { orphanSweepWorkflow } from './sweep.js';
