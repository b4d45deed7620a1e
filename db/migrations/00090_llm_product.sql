-- +goose Up
-- The product every call of a language model by an llm task is recorded against: one credit a call,
-- with the model and its token counts in the usage record's metadata.
INSERT INTO products (id, name, unit, provider, description)
VALUES ('00000000-0000-4000-8000-000000000002', 'llm-call', 'call', 'loopwork',
        'One call of a language model by an llm task; each costs one credit. The metadata holds the model and the tokens used.');

-- +goose Down
DELETE FROM products WHERE id = '00000000-0000-4000-8000-000000000002';
