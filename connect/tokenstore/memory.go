package tokenstore

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/oauth2"
)

// Memory is a [Store] that keeps tokens in memory, for tests and single-process demos.
// Tokens are lost when the process ends. The zero value is an empty store, ready to use.
type Memory struct {
	mu     sync.Mutex
	tokens map[memoryKey]*oauth2.Token
}

type memoryKey struct{ user, provider string }

// NewMemory returns an empty in-memory token store.
func NewMemory() *Memory {
	return &Memory{tokens: make(map[memoryKey]*oauth2.Token)}
}

// Get implements [Store].
func (m *Memory) Get(ctx context.Context, user, provider string) (*oauth2.Token, error) {
	if err := CheckKey(ctx, user, provider); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tok, ok := m.tokens[memoryKey{user, provider}]
	if !ok {
		return nil, fmt.Errorf("%s for user %q: %w", provider, user, ErrNotFound)
	}
	return copyToken(tok), nil
}

// Put implements [Store].
func (m *Memory) Put(ctx context.Context, user, provider string, tok *oauth2.Token) error {
	if err := CheckPut(ctx, user, provider, tok); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = make(map[memoryKey]*oauth2.Token)
	}
	m.tokens[memoryKey{user, provider}] = copyToken(tok)
	return nil
}

// Delete implements [Store].
func (m *Memory) Delete(ctx context.Context, user, provider string) error {
	if err := CheckKey(ctx, user, provider); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, memoryKey{user, provider})
	return nil
}

// Len returns how many tokens are stored. Tests use it to check that a refused flow
// stored nothing.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tokens)
}
