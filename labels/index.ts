/**
 * The labels room's door: rendering label files (PDF and ZPL) and the stored file of a shipment,
 * shared by the label activities (which render and store them) and the API (which serves them).
 */
export { allLabelFiles, labelFile } from './files.js';
