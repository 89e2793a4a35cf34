// Validates Kubernetes manifests against the API schemas that kubernetes-models ships (no
// cluster, no network), then prints every object as one JSON array for further checks.
// Usage: node validate.mjs FILE.yaml...   exit 1 naming the file, object and field on error.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const models = {
  "v1/Service": "kubernetes-models/v1/Service",
  "apps/v1/StatefulSet": "kubernetes-models/apps/v1/StatefulSet",
  "apps/v1/Deployment": "kubernetes-models/apps/v1/Deployment",
  "policy/v1/PodDisruptionBudget": "kubernetes-models/policy/v1/PodDisruptionBudget",
};

const objects = [];
let failed = false;
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
    if (doc.errors.length > 0) {
      console.error(`${file}: YAML: ${doc.errors.map((e) => e.message).join("; ")}`);
      failed = true;
      continue;
    }
    const object = doc.toJS({ maxAliasCount: 0 });
    const type = `${object.apiVersion}/${object.kind}`;
    const where = `${file}: ${type} ${object.metadata?.name}`;
    if (!(type in models)) {
      console.error(`${where}: no schema here for ${type}; add it to validate.mjs`);
      failed = true;
      continue;
    }
    const Model = Object.values(await import(models[type]))[0];
    try {
      new Model(object).validate();
    } catch (e) {
      console.error(`${where}: ${e.message}`);
      failed = true;
    }
    objects.push({ file, object });
  }
}
console.log(JSON.stringify(objects));
process.exit(failed ? 1 : 0);
