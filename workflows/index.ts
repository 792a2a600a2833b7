// The workflow bundle's entry (workers/ names this path): the workflows, and nothing else. What
// others share with them (inputs, results, updates, names) is the contract, contract/.
export { shipmentWorkflow } from './shipment.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { orphanSweepWorkflow } from './sweep.js';
export { batchWorkflow } from './batch.js';
export { batchLabelFileWorkflow } from './batch-label-file.js';
