// The admin commands live in admin/ (production code: the web portal runs them too).
export * from '../../admin/index.js';
