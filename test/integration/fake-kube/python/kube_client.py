"""Drives the official Python Kubernetes client (Debian python3-kubernetes) for the fake API server's
conformance suite: one JSON request per stdin line, one JSON answer per stdout line.

Request:  {"op": "<name>", "args": {...}}
Answer:   {"ok": true, "result": ...} or {"ok": false, "status": <http code>, "body": <parsed Status>}

Objects are returned as the client serialises them (camelCase keys), so the TypeScript side compares them
with what @kubernetes/client-node and kubectl see. Run with /usr/bin/python3 (the distribution's Python).
"""
import datetime
import json
import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def main():
    config.load_kube_config(config_file=sys.argv[1])
    api_client = client.ApiClient()
    core = client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client)
    extensions = client.ApiextensionsV1Api(api_client)
    coordination = client.CoordinationV1Api(api_client)
    plain = api_client.sanitize_for_serialization

    def watch_pods(args):
        events = []
        stream = watch.Watch()
        for event in stream.stream(core.list_namespaced_pod, args["namespace"],
                                   resource_version=args.get("resourceVersion"),
                                   timeout_seconds=args.get("timeoutSeconds", 10)):
            pod = event["object"]
            events.append([event["type"], pod.metadata.name, pod.metadata.resource_version])
            if len(events) >= args["count"]:
                stream.stop()
        return events

    def create_lease(args):
        micro = args["renewMicroseconds"]
        renew = datetime.datetime(2026, 1, 2, 3, 4, 5, micro, tzinfo=datetime.timezone.utc)
        body = client.V1Lease(metadata=client.V1ObjectMeta(name=args["name"]),
                              spec=client.V1LeaseSpec(holder_identity=args["holder"], lease_duration_seconds=15,
                                                      renew_time=renew))
        return plain(coordination.create_namespaced_lease(args["namespace"], body))

    def read_lease(args):
        lease = coordination.read_namespaced_lease(args["name"], args["namespace"])
        # The parsed datetime, to show the microseconds survived the round trip.
        return {"lease": plain(lease), "renewMicroseconds": lease.spec.renew_time.microsecond}

    def cr(a):
        return (a["group"], a["version"], a["namespace"], a["plural"])

    def watch_custom(args):
        events = []
        stream = watch.Watch()
        for event in stream.stream(custom.list_namespaced_custom_object, *cr(args),
                                   resource_version=args.get("resourceVersion"), timeout_seconds=10):
            obj = event["object"]
            events.append([event["type"], obj["metadata"]["name"], obj.get("status")])
            if len(events) >= args["count"]:
                stream.stop()
        return events

    ops = {
        "listPods": lambda a: plain(core.list_namespaced_pod(a["namespace"], label_selector=a.get("labelSelector"))),
        "readPod": lambda a: plain(core.read_namespaced_pod(a["name"], a["namespace"])),
        "createPod": lambda a: plain(core.create_namespaced_pod(a["namespace"], a["body"])),
        # A dict body: the client picks application/strategic-merge-patch+json by itself.
        "patchPod": lambda a: plain(core.patch_namespaced_pod(a["name"], a["namespace"], a["body"])),
        "deletePod": lambda a: plain(core.delete_namespaced_pod(a["name"], a["namespace"])),
        "createSecret": lambda a: plain(core.create_namespaced_secret(a["namespace"], a["body"])),
        "readSecret": lambda a: plain(core.read_namespaced_secret(a["name"], a["namespace"])),
        "deleteSecret": lambda a: plain(core.delete_namespaced_secret(a["name"], a["namespace"])),
        "watchPods": watch_pods,
        # A dict body is sent as it is (no model): the CRD keeps its x-kubernetes-* keys.
        "createCrd": lambda a: extensions.create_custom_resource_definition(a["body"]) and {},
        "createCustom": lambda a: custom.create_namespaced_custom_object(*cr(a), a["body"]),
        "getCustom": lambda a: custom.get_namespaced_custom_object(*cr(a), a["name"]),
        "listCustom": lambda a: custom.list_namespaced_custom_object(*cr(a)),
        # Always sent as application/merge-patch+json by this client version, whatever the body.
        "patchCustom": lambda a: custom.patch_namespaced_custom_object(*cr(a), a["name"], a["body"]),
        "patchCustomStatus": lambda a: custom.patch_namespaced_custom_object_status(*cr(a), a["name"], a["body"]),
        "deleteCustom": lambda a: custom.delete_namespaced_custom_object(*cr(a), a["name"]),
        "watchCustom": watch_custom,
        "createLease": create_lease,
        "readLease": read_lease,
    }

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = {"ok": True, "result": ops[request["op"]](request.get("args", {}))}
        except ApiException as error:
            try:
                body = json.loads(error.body)
            except (TypeError, ValueError):
                body = error.body
            answer = {"ok": False, "status": error.status, "body": body}
        print(json.dumps(answer, default=str), flush=True)


if __name__ == "__main__":
    main()
