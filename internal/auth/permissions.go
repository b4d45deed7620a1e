package auth

// Access says who may call one operation. Role gating happens here, once, for both interfaces;
// ownership and tenancy (own organization, own keys, app membership) are checked by the services,
// which answer 404 for what the caller may not see.
type Access struct {
	// Public operations need no credentials at all.
	Public bool
	// AnonKey operations take only the anonymous key (the authentication service).
	AnonKey bool
	// JWTOnly operations refuse API keys (the GoTrue session routes).
	JWTOnly bool
	// Roles may call the operation; a principal of any other role gets 403.
	Roles []Role
}

var (
	all        = []Role{RoleOrgAdmin, RoleBackoffice, RoleAppUser, RoleIntegration}
	admins     = []Role{RoleOrgAdmin, RoleBackoffice}
	backoffice = []Role{RoleBackoffice}
	// people are the roles of persons; service accounts (integration) do not plan or edit flows.
	people = []Role{RoleOrgAdmin, RoleBackoffice, RoleAppUser}
	// automation records what workers did: task executions, statuses, usage.
	automation = []Role{RoleOrgAdmin, RoleBackoffice, RoleIntegration}

	public  = Access{Public: true}
	anonKey = Access{AnonKey: true}
)

func roles(r []Role) Access { return Access{Roles: r} }

// Permissions is the one permission table, keyed by the contracts' operationIds. A test checks that it
// names every operation of both interfaces and nothing else.
var Permissions = map[string]Access{
	// System (both interfaces' documents and probes).
	"getRoot": public, "getLiveness": public, "getReadiness": public, "getDetailedHealth": public,
	"getSwaggerUi": public, "getRedoc": public, "getOpenApiDocument": public, "getDocsAsset": public,
	"getV1SwaggerDocument": public, "getV1OpenApiDocument": public,
	"listModels": roles(all),

	// Authentication service, anonymous key, invitations, profile.
	"getAnonKey": public, "getJwks": public, "issueToken": anonKey, "verifyAuthLink": anonKey,
	"logout":           {JWTOnly: true, Roles: all},
	"getAuthUser":      {JWTOnly: true, Roles: all},
	"resendInvitation": roles(admins),
	"getMyProfile":     roles(all),

	// Organizations: platform staff runs them; an org_admin may read its own.
	"adminCreateOrganization": roles(backoffice), "adminListOrganizations": roles(backoffice),
	"adminGetOrganization": roles(admins), "adminUpdateOrganization": roles(backoffice),
	"adminDeactivateOrganization": roles(backoffice),

	// Users.
	"adminCreateUser": roles(admins), "adminCreateOrganizationUser": roles(admins), "adminListUsers": roles(admins),
	"adminListOrganizationUsers": roles(admins), "adminGetUser": roles(admins), "adminUpdateUser": roles(admins),
	"adminDeactivateUser": roles(admins),

	// API keys: anyone manages its own; admins see the organization's.
	"createApiKey": roles(all), "listApiKeys": roles(all), "getApiKey": roles(all), "revokeApiKey": roles(all),

	// Single sign-on.
	"createSsoProvider": roles(admins), "listSsoProviders": roles(admins), "getSsoProvider": roles(admins),
	"updateSsoProvider": roles(admins), "deleteSsoProvider": roles(admins), "lookupSsoProvider": public,
	"verifySsoDomain": roles(admins),

	// Billing.
	"grantCredits": roles(backoffice), "listCreditGrants": roles(admins), "getCreditBalance": roles(all),
	"listProducts": roles(all), "getProduct": roles(all), "addProduct": roles(backoffice),
	"editProduct": roles(backoffice), "deleteProduct": roles(backoffice),
	"recordUsage": roles(automation), "listUsageRecords": roles(all), "getUsageSummary": roles(all),

	// Flows, views, invitations. Service accounts may provision flows too; which flows a caller may
	// change (its own, those it is invited to, or any as an admin) is the flows service's rule.
	"createFlow": roles(all), "listFlows": roles(all), "getFlow": roles(all), "updateFlow": roles(all),
	"modifyFlow": roles(all), "updateFlowDefinition": roles(all), "deleteFlow": roles(all),
	"listFlowVersions": roles(all),
	"createFlowView":   roles(all), "listFlowViews": roles(all), "getFlowView": roles(all),
	"updateFlowView": roles(all), "deleteFlowView": roles(all),
	"inviteFlowUsers": roles(all), "listFlowInvitations": roles(all), "revokeFlowInvitation": roles(all),

	// Executions, task executions, statuses, tags, human review.
	"startFlowExecution": roles(all), "listFlowExecutions": roles(all), "getFlowExecution": roles(all),
	"deleteFlowExecution": roles(all), "stopFlowExecution": roles(all),
	"recordTaskExecution": roles(automation), "listTaskExecutionRecords": roles(all), "claimTaskExecution": roles(automation),
	"addTaskStatuses": roles(automation), "listTaskStatuses": roles(all),
	"batchPatchTaskTags": roles(all), "listTaskTags": roles(all),
	"createHumanReviewTask": roles(automation), "listHumanReviewTasks": roles(all), "getHumanReviewTask": roles(all),
	"startHumanReviewTask": roles(all), "completeHumanReviewTask": roles(all),
	"listHumanReviewTaskAssignments": roles(all), "listMyHumanReviewAssignments": roles(all),

	// Conversational agent: conversations belong to people; the stateless calls serve automation too.
	"startConversation": roles(people), "listConversations": roles(people), "getConversation": roles(people),
	"updateConversationPhase": roles(people), "deleteConversation": roles(people),
	"listConversationMessages": roles(people), "streamConversationChat": roles(people),
	"runDirectAgent": roles(all), "transcribeAudio": roles(all),

	// Credentials, integrations, SQL databases, e-mail tasks.
	"createCredential": roles(all), "listCredentials": roles(all), "listCredentialProviders": roles(all),
	"getCredential": roles(all), "updateCredential": roles(all), "deleteCredential": roles(all),
	"listIntegrationCatalog": roles(all), "getIntegrationCatalogEntry": roles(all), "buildUiSchema": roles(all),
	"createIntegration": roles(all), "listIntegrations": roles(all), "getIntegration": roles(all),
	"deleteIntegration": roles(all), "getIntegrationMetadata": roles(all),
	"createSqlDatabase": roles(all), "listSqlDatabases": roles(all), "getSqlDatabase": roles(all),
	"deleteSqlDatabase": roles(all), "testSqlDatabaseConnection": roles(all),
	"createEmailTask": roles(all), "listEmailTasks": roles(all), "getEmailTaskStatus": roles(all),
	"deleteEmailTask": roles(all),

	// Documents and storage.
	"createDocument": roles(all), "listDocuments": roles(all), "getDocument": roles(all), "deleteDocument": roles(all),
	"startDocumentUpload": roles(all), "previewDocumentUpload": roles(all), "completeDocumentUpload": roles(all),
	"listDocumentColumns": roles(all), "listDocumentRows": roles(all), "getDocumentDownloadUrl": roles(all),
	"resolveStorageUri": roles(all), "createPresignedDownloadUrl": roles(all), "downloadStorageObject": public,

	// /v1: every role may call every operation; what it may do on an app follows its membership role
	// (LABELER, REVIEWER, MANAGER), which the /v1 services check.
	"listBaselineData": roles(all), "createBaselineData": roles(all), "createBaselineDataFromJob": roles(all),
	"updateBaselineData": roles(all), "deleteBaselineData": roles(all), "getApiMetrics": roles(all),
	"setDesiredApiMetrics": roles(all),
	"listAppTags":          roles(all), "createAppTag": roles(all), "getAppTag": roles(all), "updateAppTag": roles(all),
	"deleteAppTag": roles(all),
	// The organization's workers and worker groups: any user reads them; administrators and service
	// accounts manage the groups.
	"listWorkers": roles(all), "getWorker": roles(all), "listWorkerGroups": roles(all), "getWorkerGroup": roles(all),
	"createWorkerGroup": roles(automation), "renameWorkerGroup": roles(automation), "deleteWorkerGroup": roles(automation),
	"addWorkerGroupMember": roles(automation), "removeWorkerGroupMember": roles(automation),
	"listAppWorkerGroups": roles(all), "addAppWorkerGroup": roles(all), "updateAppWorkerGroup": roles(all),
	"removeAppWorkerGroup": roles(all), "listAppWorkers": roles(all), "getAppWorkerByUsername": roles(all),
	"addAppWorker": roles(all), "updateAppWorker": roles(all), "removeAppWorker": roles(all),
	"listApps": roles(all), "createApp": roles(all), "getApp": roles(all), "updateApp": roles(all),
	"cloneApp": roles(all), "checkJobScoreExists": roles(all), "updateOwnerActivity": roles(all),
	"getJobFeedbackStats": roles(all), "getJobResponsesLink": roles(all),
	"listJobs": roles(all), "submitJob": roles(all), "getJob": roles(all), "deleteJob": roles(all),
	"getJobHistory": roles(all), "submitJobFeedback": roles(all), "listCollaboratorJobs": roles(all),
	"countJobs": roles(all), "countJobsByProcessingState": roles(all), "listJobIds": roles(all),
	"listJobsWithFeedbackMessage": roles(all),
	"addJobTags":                  roles(all), "removeJobTags": roles(all), "cancelJobs": roles(all), "deleteJobs": roles(all),
	"getBulkOperation": roles(all),
	"getJobToLabel":    roles(all), "submitJobResponse": roles(all), "getLabelingJobsCostOverTime": roles(all),
	"getLabelingJobsMetricsOverTime": roles(all), "getLabelingJobsTimeOverTime": roles(all),
	"getLabelingProgress": roles(all), "getLabelingTimeLeft": roles(all),
	"exportJobResponses": roles(all), "listExports": roles(all), "getExport": roles(all),
	"listAllMetrics": roles(all), "getMeasurerConfidences": roles(all), "getMeasurerConfiguration": roles(all),
	"updateMeasurerConfiguration": roles(all), "getMeasurements": roles(all), "listMeasurerOperations": roles(all),
	"createMeasurerOperation": roles(all),
}

// Allows reports whether role may call an operation with the given access rule.
func (a Access) Allows(role Role) bool {
	for _, r := range a.Roles {
		if r == role {
			return true
		}
	}
	return false
}
