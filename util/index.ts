// Small Node helpers with no domain meaning, safe to import from any folder.
export * from './free-ports.js';
