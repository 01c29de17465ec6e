#!/usr/bin/env python3
"""Writes a synthetic spec with N channels, in both forms the generators read:

  <out>/asyncapi.yaml + <out>/schemas.yaml   channelgen (AsyncAPI 3.0 + OpenAPI components)
  <out>/channelgen.yaml                       its config
  <out>/openapi.yaml                          the same component schemas for swift-openapi-generator
  <out>/openapi-generator-config.yaml         types mode

Each channel gets its own payload schema, cycling through the nine Vortex payload shapes
(so 504 channels → 504 distinct schemas), with a nested enum on every third one.
"""
import argparse
import os

SHAPES = [
    ("online", "type: boolean"), ("recording", "type: boolean"), ("fwUpdateState", "type: integer\n          minimum: -1\n          maximum: 14"),
    ("videoLength", "type: number"), ("licensePhase", "type: string\n          enum: [SetupStatus, Valid, NoticePeriod, GracePeriod, RenewalOverdue, Invalid]"),
    ("isFreePlan", "type: boolean"), ("termsAgreement", "type: boolean"), ("reason", "type: string"),
    ("revokedAt", "type: string\n          format: date-time"),
]


def schema(index):
    field, definition = SHAPES[index % len(SHAPES)]
    return f"""    Event{index}Output:
      type: object
      description: Payload of channel {index}.
      required: [eventType, timestamp]
      properties:
        eventType:
          type: string
        timestamp:
          type: string
          format: date-time
        orgId:
          type: string
          nullable: true
        thingName:
          type: string
          nullable: true
        {field}:
          {definition}
          nullable: true
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    n = args.channels
    schemas = "".join(schema(i) for i in range(n))
    with open(os.path.join(args.out, "schemas.yaml"), "w") as f:
        f.write("openapi: 3.0.3\ninfo: {title: Synthetic payloads, version: 1.0.0}\npaths: {}\ncomponents:\n  schemas:\n" + schemas)
    with open(os.path.join(args.out, "openapi.yaml"), "w") as f:
        f.write("openapi: 3.0.3\ninfo: {title: Synthetic payloads, version: 1.0.0}\npaths: {}\ncomponents:\n  schemas:\n" + schemas)
    channels, operations, messages = [], [], []
    for i in range(n):
        channels.append(f"""  channel{i}:
    address: synthetic/user/{{userId}}/c{i}
    parameters:
      userId: {{$ref: '#/components/parameters/userId'}}
    messages:
      event{i}: {{$ref: '#/components/messages/event{i}'}}
""")
        operations.append(f"""  channel{i}Values:
    action: receive
    channel: {{$ref: '#/channels/channel{i}'}}
""")
        messages.append(f"""    event{i}:
      name: synthetic/event{i}
      payload: {{$ref: './schemas.yaml#/components/schemas/Event{i}Output'}}
""")
    with open(os.path.join(args.out, "asyncapi.yaml"), "w") as f:
        f.write("asyncapi: 3.0.0\ninfo: {title: Synthetic events, version: 1.0.0}\nchannels:\n" + "".join(channels)
                + "operations:\n" + "".join(operations)
                + "components:\n  parameters:\n    userId: {description: The subscriber.}\n  messages:\n" + "".join(messages))
    with open(os.path.join(args.out, "channelgen.yaml"), "w") as f:
        f.write("spec: asyncapi.yaml\n")
    with open(os.path.join(args.out, "openapi-generator-config.yaml"), "w") as f:
        f.write("generate:\n  - types\naccessModifier: public\n")


if __name__ == "__main__":
    main()
