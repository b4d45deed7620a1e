-- +goose Up
-- Flows carry their data (docs/flows.md, "Data flow"):
--   * task_executions.vars holds the variables an attempt's expressions read ($input, $tasks), written
--     only for tasks whose expressions read some, so that every attempt of the task, retries and repeated
--     deliveries included, sees the same values;
--   * task_executions.detail records what an attempt decided or did beside its output: a condition's
--     {"result": bool}, a delay's {"waited_seconds": n}. Both tasks now pass their input on as their output.
-- Stored definitions are rewritten so that every flow keeps behaving as before. An edge out of a condition
-- task used to see the output {"result": bool}; it now follows a branch (`branch`, true when omitted) and
-- its condition sees the passed-on input. So an edge condition out of a condition task becomes:
--   .result (and the same spelt == true)    → branch true, no condition
--   .result | not, .result == false, ...    → branch false, no condition
--   anything else, C                        → two edges, branch true with `{"result": true} | (C)` and
--                                             branch false with `{"result": false} | (C)`: C sees exactly
--                                             the object it saw before, in both branches.
-- Edges without a condition followed true before and still do.
ALTER TABLE task_executions ADD COLUMN vars jsonb, ADD COLUMN detail jsonb;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pg_temp.branch_edges(def jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  conds text[];
  e jsonb;
  c text;
  out jsonb := '[]'::jsonb;
BEGIN
  SELECT coalesce(array_agg(t ->> 'name'), '{}') INTO conds
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(def -> 'tasks') = 'array' THEN def -> 'tasks' ELSE '[]' END) t
  WHERE jsonb_typeof(t) = 'object' AND t ->> 'type' = 'condition';
  IF cardinality(conds) = 0 OR jsonb_typeof(def -> 'edges') IS DISTINCT FROM 'array' THEN
    RETURN def;
  END IF;
  FOR e IN SELECT value FROM jsonb_array_elements(def -> 'edges') LOOP
    c := CASE WHEN jsonb_typeof(e) = 'object' AND jsonb_typeof(e -> 'condition') = 'string' THEN e ->> 'condition' END;
    IF c IS NULL OR NOT (e ->> 'source' = ANY (conds)) OR e ? 'branch' THEN
      out := out || jsonb_build_array(e);
    ELSIF regexp_replace(c, '\s', '', 'g') IN ('.result', '(.result)', '.result==true', '.result|.==true') THEN
      out := out || jsonb_build_array((e - 'condition') || '{"branch": true}');
    ELSIF regexp_replace(c, '\s', '', 'g') IN ('.result|not', '(.result|not)', '.result==false', '.result!=true',
        '(.result==false)', '.result|.==false') THEN
      out := out || jsonb_build_array((e - 'condition') || '{"branch": false}');
    ELSE
      out := out || jsonb_build_array(e || jsonb_build_object('branch', true, 'condition', '{"result": true} | (' || c || ')'))
                 || jsonb_build_array(e || jsonb_build_object('branch', false, 'condition', '{"result": false} | (' || c || ')'));
    END IF;
  END LOOP;
  RETURN jsonb_set(def, '{edges}', out);
END $$;
-- +goose StatementEnd

UPDATE flow_versions SET definition = pg_temp.branch_edges(definition)
WHERE definition::text LIKE '%"condition"%' AND pg_temp.branch_edges(definition) IS DISTINCT FROM definition;
DROP FUNCTION pg_temp.branch_edges(jsonb);

-- +goose Down
ALTER TABLE task_executions DROP COLUMN vars, DROP COLUMN detail;
