import { describe, expect, it } from '@jest/globals';
import { portableSchema } from './server';

describe('portableSchema', () => {
  it('spells a nullable field as anyOf with a null branch, keeping its constraints and annotations outside', () => {
    expect(portableSchema({ type: ['string', 'null'], format: 'email', description: 'contact' })).toEqual({
      description: 'contact',
      anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }],
    });
    expect(portableSchema({ type: ['string', 'null'], enum: ['trial', 'subscription', null] })).toEqual({
      anyOf: [{ type: 'string', enum: ['trial', 'subscription'] }, { type: 'null' }],
    });
  });

  it('spells an open object as additionalProperties: true, at any depth, and leaves the rest alone', () => {
    const schema = { type: 'object', properties: { a: { type: 'object', properties: {}, additionalProperties: {} }, b: { type: 'integer' } }, additionalProperties: false, required: ['b'] };
    expect(portableSchema(schema)).toEqual({ type: 'object', properties: { a: { type: 'object', properties: {}, additionalProperties: true }, b: { type: 'integer' } }, additionalProperties: false, required: ['b'] });
  });
});
