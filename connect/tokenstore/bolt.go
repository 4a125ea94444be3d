package tokenstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/oauth2"
)

// Bolt is a [Store] backed by a bbolt database file (open it with [OpenBolt]; the zero Bolt
// is not usable): tokens survive restarts of a single
// server instance. Each provider has its own bucket, keyed by user. The file is created
// with mode 0600; tokens are stored as JSON, not encrypted, so protect the file like any
// other secret.
type Bolt struct {
	db *bolt.DB
}

// boltRecord is what a token looks like on disk.
type boltRecord struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// BoltOptions configure [OpenBolt]; nil means the defaults.
type BoltOptions struct {
	// Timeout bounds the wait for the file lock held by another process
	// (default one second).
	Timeout time.Duration
}

// OpenBolt opens (or creates) the bbolt database at path. Close the store when done.
func OpenBolt(path string, opts *BoltOptions) (*Bolt, error) {
	timeout := time.Second
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("open token store %s: %w (is another server using it?)", path, err)
	}
	return &Bolt{db: db}, nil
}

// Close closes the database file.
func (b *Bolt) Close() error {
	return b.db.Close()
}

func bucketName(provider string) []byte { return []byte("tokens/" + provider) }

// Get implements [Store].
func (b *Bolt) Get(ctx context.Context, user, provider string) (*oauth2.Token, error) {
	if err := CheckKey(ctx, user, provider); err != nil {
		return nil, err
	}
	var rec *boltRecord
	err := b.db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName(provider))
		if bk == nil {
			return nil
		}
		v := bk.Get([]byte(user))
		if v == nil {
			return nil
		}
		rec = new(boltRecord)
		return json.Unmarshal(v, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("read %s token for user %q: %w", provider, user, err)
	}
	if rec == nil {
		return nil, fmt.Errorf("%s for user %q: %w", provider, user, ErrNotFound)
	}
	return &oauth2.Token{
		AccessToken:  rec.AccessToken,
		TokenType:    rec.TokenType,
		RefreshToken: rec.RefreshToken,
		Expiry:       rec.Expiry,
	}, nil
}

// Put implements [Store].
func (b *Bolt) Put(ctx context.Context, user, provider string, tok *oauth2.Token) error {
	if err := CheckPut(ctx, user, provider, tok); err != nil {
		return err
	}
	v, err := json.Marshal(boltRecord{
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
	})
	if err != nil {
		return fmt.Errorf("encode token: %w", err)
	}
	err = b.db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(bucketName(provider))
		if err != nil {
			return err
		}
		return bk.Put([]byte(user), v)
	})
	if err != nil {
		return fmt.Errorf("store %s token for user %q: %w", provider, user, err)
	}
	return nil
}

// Delete implements [Store].
func (b *Bolt) Delete(ctx context.Context, user, provider string) error {
	if err := CheckKey(ctx, user, provider); err != nil {
		return err
	}
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName(provider))
		if bk == nil {
			return nil
		}
		return bk.Delete([]byte(user))
	})
	if err != nil {
		return fmt.Errorf("delete %s token for user %q: %w", provider, user, err)
	}
	return nil
}
