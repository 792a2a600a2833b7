/** The parcel and route every scenario quotes and buys: a domestic UK parcel every service accepts. */
export const FROM = { name: 'Ada Lovelace', line1: '1 Main Street', city: 'London', postcode: 'N1 9GU', country: 'GB' };
export const TO = { name: 'Charles Babbage', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 4AP', country: 'GB' };
export const PARCEL = { weight_g: 1200, length_mm: 300, width_mm: 200, height_mm: 100 };

export const quoteRequest = () => ({ from: FROM, to: TO, parcel: PARCEL });

export const buyRequest = (service: string, reference: string) => ({ service, from: FROM, to: TO, parcel: PARCEL, reference });
