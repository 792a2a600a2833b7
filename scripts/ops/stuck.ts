// The stuck-shipment finder lives in admin/ (production code: the web portal runs it too).
export * from '../../admin/index.js';
