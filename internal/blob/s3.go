package blob

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config says how to reach an S3-compatible service.
type S3Config struct {
	// Endpoint is the service's URL (https://s3.eu-central-1.amazonaws.com, http://127.0.0.1:7070).
	Endpoint  string
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	// PathStyle addresses the bucket in the path rather than the host name (MinIO, versitygw).
	PathStyle bool
}

// S3 keeps objects in a bucket of any S3-compatible service; links are the service's presigned GETs.
type S3 struct {
	c      *minio.Client
	bucket string
}

// NewS3 connects to the service; the bucket must exist.
func NewS3(cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("blob: S3 endpoint %q must be an http(s) URL", cfg.Endpoint)
	}
	lookup := minio.BucketLookupDNS
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: u.Scheme == "https", Region: cfg.Region, BucketLookup: lookup})
	if err != nil {
		return nil, err
	}
	return &S3{c: c, bucket: cfg.Bucket}, nil
}

// Put streams the object in parts; S3 makes it visible only when the last part is in, and a failed
// upload is aborted, so a partial object never appears under key.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, contentType string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	info, err := s.c.PutObject(ctx, s.bucket, key, r, -1, minio.PutObjectOptions{ContentType: contentType,
		PartSize: 16 << 20})
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: info.Size, ContentType: contentType, ModTime: time.Now()}, nil
}

func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	info, err := s.Stat(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, Info{}, s3Err(err)
	}
	return obj, info, nil
}

func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	st, err := s.c.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s3Err(err)
	}
	return Info{Key: key, Size: st.Size, ContentType: st.ContentType, ModTime: st.LastModified}, nil
}

func (s *S3) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	return s3Err(s.c.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}))
}

// URL presigns a GET; S3 limits presigned links to seven days.
func (s *S3) URL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	ttl = min(max(ttl, time.Second), 7*24*time.Hour)
	params := url.Values{}
	if filename != "" {
		params.Set("response-content-disposition", `attachment; filename="`+strings.ReplaceAll(filename, `"`, "")+`"`)
	}
	u, err := s.c.PresignedGetObject(ctx, s.bucket, key, ttl, params)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

func (s *S3) URI(key string) string { return "s3://" + s.bucket + "/" + key }

// Bucket is the bucket objects are kept in.
func (s *S3) Bucket() string { return s.bucket }

func s3Err(err error) error {
	if err == nil {
		return nil
	}
	if r := minio.ToErrorResponse(err); r.Code == "NoSuchKey" || r.StatusCode == 404 {
		return ErrNotFound
	}
	return err
}
