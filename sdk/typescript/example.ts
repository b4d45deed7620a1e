// The TypeScript client end to end against a running loopwork: sign in with a password, create a flow with
// a human review, an API key and an app of that flow, submit and list jobs on /v1, start an execution of
// the flow on /api, complete its review and wait for the execution to finish.
//
//   npm ci && npm run build
//   LOOPWORK_URL=http://127.0.0.1:8080 LOOPWORK_EMAIL=… LOOPWORK_PASSWORD=… npm run example
//
// The user needs a role that creates flows, apps and API keys (org_admin), and the organization credits
// for the jobs and the execution (a backoffice user grants them: POST /api/admin/organizations/{id}/credit-grants).
// It prints each step, and last one line of JSON naming what it made, for a program to check.
import {
  ApiError,
  createPlatformClient,
  createV1Client,
  ok,
  type FlowDefinition,
  type platformapi,
} from "../../gen/ts/index.js";

type Execution = platformapi.components["schemas"]["FlowExecutionResponse"];

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

const baseUrl = setting("LOOPWORK_URL");
const email = setting("LOOPWORK_EMAIL");
const password = setting("LOOPWORK_PASSWORD");

// Signing in: the anonymous key is public (the server hands it out) and the authentication service wants
// it beside the password, as GoTrue does. The access token then works on both interfaces.
const { anon_key } = await ok(createPlatformClient(baseUrl).GET("/api/auth/anon-key"));
const session = await ok(
  createPlatformClient(baseUrl, { anonKey: anon_key }).POST("/auth/v1/token", {
    params: { query: { grant_type: "password" } },
    body: { email, password },
  }),
);
const api = createPlatformClient(baseUrl, { token: session.access_token });
console.log(`signed in as ${session.user.email}`);

// A flow whose middle task waits for the signed-in user to review what the first one made. The request
// takes any object as the definition (drafts with problems are stored and reported); typed as a
// FlowDefinition, each task's parameters are checked against its type's schema as it is written.
const definition: FlowDefinition = {
  version: 1,
  tasks: [
    { name: "prepare", type: "transform", parameters: { expression: "{greeting: (\"Hello, \" + .name)}" } },
    {
      name: "review",
      type: "human_review",
      parameters: { assigned_users: [session.user.id], instructions: "Is the greeting polite?" },
    },
    { name: "finish", type: "transform", parameters: { expression: "{greeting: .greeting, approved: .review_result}" } },
  ],
  edges: [
    { source: "prepare", target: "review" },
    { source: "review", target: "finish" },
  ],
};
const flow = await ok(
  api.POST("/api/flows", {
    body: { display_name: "SDK example: reviewed greeting", visibility: "organization", definition },
  }),
);
if (flow.validation_errors?.length) {
  throw new Error(`the flow is not valid: ${JSON.stringify(flow.validation_errors)}`);
}
console.log(`created flow ${flow.id}`);

// /v1 takes the same access token; an API key shows the other credential, the one a service would keep.
const key = await ok(api.POST("/api/api-keys", { body: { name: "SDK example", service_account: false } }));
const v1 = createV1Client(baseUrl, { token: key.token });
console.log(`created API key ${key.token_prefix}…`);

// An app is an instance of a flow (its api_id); each job submitted to it runs as an execution of the flow.
const app = await ok(
  v1.POST("/v1/apps", { body: { name: "SDK example", api_id: flow.id, rerun_unfinished_jobs: false } }),
);
console.log(`created app ${app.id}`);
const jobIds: number[] = [];
for (const name of ["Ada", "Grace", "Barbara"]) {
  const job = await ok(
    v1.POST("/v1/apps/{app_id}/jobs", {
      params: { path: { app_id: app.id } },
      body: { input: { name }, tags: ["sdk-example"] },
    }),
  );
  jobIds.push(job.id);
}
const listed = await ok(
  v1.GET("/v1/apps/{app_id}/jobs", {
    params: { path: { app_id: app.id }, query: { size: 10, sortBy: "id", orderBy: "asc" } },
  }),
);
for (const job of listed.items) {
  console.log(`job ${job.id}: ${job.status}`);
}
if (listed.total !== jobIds.length) {
  throw new Error(`the app lists ${listed.total} jobs, ${jobIds.length} were submitted`);
}

// An execution started on /api, which stops at the review until someone completes it.
const started = await ok(api.POST("/api/flow-executions", { body: { flow_id: flow.id, input: { name: "Edsger" } } }));
await waitFor(started.id, ["awaiting_input"]);
const reviews = await ok(
  api.GET("/api/human-review-tasks", {
    params: { query: { flow_execution_id: started.id, assigned_to_me: true } },
  }),
);
const review = reviews.human_review_tasks[0];
if (!review) {
  throw new Error(`execution ${started.id} awaits input but has no review for ${session.user.email}`);
}
// The content under review is the reviewed task's output; approving sends it back as it was.
const content = review.task_metadata?.["source_output"];
await ok(api.POST("/api/human-review-tasks/{id}/start", { params: { path: { id: review.id } } }));
await ok(
  api.POST("/api/human-review-tasks/{id}/complete", {
    params: { path: { id: review.id } },
    body: { review_result: true, reviewed_output: isObject(content) ? content : {} },
  }),
);
console.log(`completed review ${review.id}`);
const finished = await waitFor(started.id, ["completed", "failed"]);
console.log(`execution ${finished.id}: ${finished.status}, output ${JSON.stringify(finished.output)}`);
if (finished.status !== "completed") {
  throw new Error(`the execution ended ${finished.status}: ${JSON.stringify(finished.error)}`);
}

// A failed call throws ApiError, with the status, the error body and the request id for the server's log.
try {
  await ok(v1.GET("/v1/apps/{app_id}", { params: { path: { app_id: "00000000-0000-4000-8000-000000000000" } } }));
  throw new Error("a missing app was found");
} catch (err) {
  if (!(err instanceof ApiError) || err.status !== 404 || !err.requestId) {
    throw err;
  }
  console.log(`a missing app: ${err.message}`);
}

console.log(
  JSON.stringify({
    flow_id: flow.id,
    api_key_id: key.id,
    app_id: app.id,
    job_ids: jobIds,
    execution_id: finished.id,
    review_id: review.id,
    output: finished.output,
  }),
);

// waitFor polls an execution until its status is one of statuses, for at most 30 seconds.
async function waitFor(id: string, statuses: Execution["status"][]): Promise<Execution> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const execution = await ok(api.GET("/api/flow-executions/{id}", { params: { path: { id } } }));
    if (statuses.includes(execution.status)) {
      return execution;
    }
    if (Date.now() > deadline) {
      throw new Error(`execution ${id} is still ${execution.status}, waited for ${statuses.join(" or ")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
