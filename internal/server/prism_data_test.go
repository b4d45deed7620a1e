package server_test

import (
	"bytes"
	"mime/multipart"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/testkit"
)

// data covers what an organization keeps beside its flows: credentials and what uses them, documents
// uploaded, previewed and imported, stored files, e-mail tasks, and the agent's conversations with
// their event stream.
func (s *scenario) data() {
	flowID := s.ids["flows/{id}"]
	s.api("GET", "/api/credentials/providers", nil, 200)
	cred := s.api("POST", "/api/credentials", map[string]any{"name": "billing " + uuid.NewString()[:8], "provider": "vendor_b",
		"credential_type": "api_key", "data": map[string]any{"api_key": "k-123"}}, 201)
	s.ids["credentials/{id}"] = cred.str("id")
	s.api("PATCH", "/api/credentials/"+cred.str("id"), map[string]any{"name": "billing renamed " + uuid.NewString()[:8]}, 200)
	s.api("GET", "/api/credentials", nil, 200)
	integration := s.api("POST", "/api/integrations", map[string]any{"flow_id": flowID, "credential_id": cred.str("id"),
		"description": "doubles with vendor b", "task_name": "double"}, 201)
	s.ids["integrations/{id}"] = integration.str("id")
	s.api("GET", "/api/integrations", nil, 200)
	catalog := s.api("GET", "/api/integrations/catalog", nil, 200)
	for _, e := range catalog.list("items") {
		s.ids["catalog/{id}"] = e.str("id")
	}
	s.api("POST", "/api/integrations/ui-schema", map[string]any{"task_type": "transform", "parameters": map[string]any{"expression": "."}}, 200)
	s.api("GET", "/api/models", nil, 200)

	api, _ := s.clients()
	doc := testkit.ImportCSV(s.t, api, "people "+uuid.NewString()[:8], "name,age\nada,36\ngrace,85\n")
	id := doc.Id.String()
	s.ids["database/{db_id}"] = id
	s.api("GET", "/api/database", nil, 200)
	s.api("GET", "/api/database/"+id+"/columns", nil, 200)
	s.api("GET", "/api/database/"+id+"/rows?limit=10", nil, 200)
	link := s.api("GET", "/api/database/"+id+"/download", nil, 200)
	if u, err := url.Parse(link.str("download_url")); err == nil && strings.Contains(u.Path, "/api/storage/download/") {
		s.ids["download/{token}"] = u.Path[strings.LastIndex(u.Path, "/")+1:]
	}
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	part, _ := w.CreateFormFile("file", "more.csv")
	part.Write([]byte("name;age\nhedy;42\n"))
	w.Close()
	if status, b := s.raw("api", "POST", "/api/database/"+id+"/upload/preview", form.Bytes(), "Content-Type", w.FormDataContentType()); status != 200 {
		s.t.Errorf("scenario: preview answered %d: %.600s", status, b)
	}
	s.api("POST", "/api/storage/resolve", map[string]any{"uri": "storage://documents/nothing.csv"}, 200, 404)
	s.api("POST", "/api/storage/presigned-download", map[string]any{"file_key": "documents/nothing.csv"}, 200, 404)

	task := s.api("POST", "/api/email-tasks", map[string]any{"name": "invoices " + uuid.NewString()[:8], "flow_id": flowID, "task_name": "double"}, 201)
	s.ids["email-tasks/{task_id}"] = task.str("task_id")
	s.api("GET", "/api/email-tasks", nil, 200)
	s.api("GET", "/api/email-tasks/"+task.str("task_id")+"/status", nil, 200)

	conv := s.api("POST", "/api/agent/conversations", map[string]any{"title": "a flow that doubles"}, 201)
	s.ids["conversations/{id}"] = conv.str("conversation_id")
	status, stream := s.raw("api", "POST", "/api/agent/conversations/"+conv.str("conversation_id")+"/chat/stream",
		map[string]any{"message": map[string]any{"message_type": "user_message", "message": "Double the value I send."}}, "Accept", "text/event-stream")
	if status != 200 || !strings.Contains(string(stream), "event:") {
		s.t.Errorf("scenario: the chat stream answered %d: %.600s", status, stream)
	}
	s.api("GET", "/api/agent/conversations", nil, 200)
	s.api("GET", "/api/agent/conversations/"+conv.str("conversation_id")+"/messages", nil, 200)
	s.api("PATCH", "/api/agent/conversations/"+conv.str("conversation_id"), map[string]any{"phase": "build"}, 200, 409)
	s.api("POST", "/api/agent/direct", map[string]any{"prompt": "Add a task that doubles the value."}, 200)

	s.ids["assets/{file}"] = "swagger-ui.css"
	for _, p := range []string{"/api/openapi.json", "/v1/openapi.json", "/v1/swagger.json", "/api/docs", "/api/redoc", "/"} {
		if status, b := s.raw("api", "GET", p, nil); status != 200 {
			s.t.Errorf("scenario: GET %s answered %d: %.300s", p, status, b)
		}
	}
}
