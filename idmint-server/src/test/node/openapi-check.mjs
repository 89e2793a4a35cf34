// OpenApiIT's checker, of another stack than the server: validates an OpenAPI document with
// @seriousme/openapi-schema-validator, then checks sampled responses against it with Ajv
// (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Prints one JSON line:
// {"valid":…,"version":…,"errors":…,"samples":[{"sample":…,"errors":[…]}…]}.
// Usage: node openapi-check.mjs OPENAPI_JSON SAMPLES_JSON, where each sample is
// {"path": template, "method": "get", "status": "200", "contentType": …, "body": text}.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const [docFile, samplesFile] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(docFile, 'utf8'));
const validator = new Validator();
const result = await validator.validate(doc);

// Everything a sample's schema may $ref ("#/components/…") is resolved against this root.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const deref = (o) => (o && o.$ref ? deref(pointer(o.$ref)) : o);
function pointer(ref) {
  return ref.slice(2).split('/').reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')],
    doc);
}

function check(s) {
  const op = doc.paths[s.path]?.[s.method];
  if (!op) {
    return [`no operation ${s.method} ${s.path}`];
  }
  const response = deref(op.responses[s.status]);
  if (!response) {
    return [`no response ${s.status} for ${s.method} ${s.path}`];
  }
  if (!response.content) {
    return s.body === '' ? [] : [`response ${s.status} has no content, got a body`];
  }
  const type = Object.keys(response.content).find((t) => t === s.contentType);
  if (!type) {
    return [`content type ${s.contentType} is not one of ${Object.keys(response.content)}`];
  }
  const schema = response.content[type].schema;
  const body = type.includes('json') ? JSON.parse(s.body) : s.body;
  const validate = ajv.compile({ ...schema, components: doc.components });
  return validate(body) ? [] : validate.errors.map((e) => `${e.instancePath} ${e.message}`);
}

const samples = JSON.parse(readFileSync(samplesFile, 'utf8'));
console.log(JSON.stringify({
  valid: result.valid,
  version: validator.version,
  errors: result.errors ?? null,
  samples: samples.map((s) => ({ sample: `${s.method} ${s.path} ${s.status}`, errors: check(s) })),
}));
