export { shipmentWorkflow } from './shipment.js';
