// A client of another stack for GrpcProbesIT: lists the services of an idmint server through
// server reflection (v1 and v1alpha), fetches the file that defines idmint.v1.IdService, and
// reads grpc.health.v1 for the whole server and for idmint.v1.IdService. Prints one JSON line.
// Usage: node grpc-probe.js HOST:PORT PROTO_DIR
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const [target, protoDir] = process.argv.slice(2);
const options = {
  keepCase: true, longs: String, enums: String, defaults: true, includeDirs: [protoDir],
};
const load = (file) => grpc.loadPackageDefinition(loader.loadSync(file, options));
const credentials = grpc.credentials.createInsecure();

function reflect(pkg, request) {
  const client = new pkg.ServerReflection(target, credentials);
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    call.on('data', (r) => { resolve(r); call.end(); });
    call.on('error', reject);
    call.write(request);
  });
}

function check(health, service) {
  return new Promise((resolve, reject) => health.Check({ service }, (e, r) => {
    if (e) {
      resolve('error ' + grpc.status[e.code]);
    } else {
      resolve(r.status);
    }
  }));
}

async function main() {
  const v1 = load('grpc/reflection/v1/reflection.proto').grpc.reflection.v1;
  const v1alpha = load('grpc/reflection/v1alpha/reflection.proto').grpc.reflection.v1alpha;
  const names = (r) => r.list_services_response.service.map((s) => s.name).sort();
  const list = { list_services: '' };
  const file = await reflect(v1, { file_containing_symbol: 'idmint.v1.IdService' });
  const healthPkg = load('grpc/health/v1/health.proto').grpc.health.v1;
  const health = new healthPkg.Health(target, credentials);
  console.log(JSON.stringify({
    v1: names(await reflect(v1, list)),
    v1alpha: names(await reflect(v1alpha, list)),
    idmintFileDescriptors: file.file_descriptor_response.file_descriptor_proto.length,
    health: {
      '': await check(health, ''),
      'idmint.v1.IdService': await check(health, 'idmint.v1.IdService'),
      'no.such.Service': await check(health, 'no.such.Service'),
    },
  }));
  health.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
