package sso

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"
)

// SAML 2.0 metadata and XML signature namespaces.
const (
	nsMetadata   = "urn:oasis:names:tc:SAML:2.0:metadata"
	nsProtocol   = "urn:oasis:names:tc:SAML:2.0:protocol"
	maxXMLDepth  = 64   // real metadata nests about ten deep; more is an attack or a mistake
	maxEntityLen = 1024 // SAML 2.0 core §8.3.6 limits entity identifiers to 1024 characters
)

// The parts of SAML 2.0 metadata that sign-in needs. Everything else in the document (extensions,
// signatures, contacts) is kept in the stored XML but not interpreted here.
type entitiesDescriptor struct {
	Entities []entityDescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata EntityDescriptor"`
}

type entityDescriptor struct {
	EntityID string          `xml:"entityID,attr"`
	IDPs     []idpDescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata IDPSSODescriptor"`
}

type idpDescriptor struct {
	Protocols string          `xml:"protocolSupportEnumeration,attr"`
	Keys      []keyDescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata KeyDescriptor"`
	SSO       []endpoint      `xml:"urn:oasis:names:tc:SAML:2.0:metadata SingleSignOnService"`
}

type keyDescriptor struct {
	Use   string   `xml:"use,attr"`
	Certs []string `xml:"http://www.w3.org/2000/09/xmldsig# KeyInfo>X509Data>X509Certificate"`
}

type endpoint struct {
	Binding  string `xml:"Binding,attr"`
	Location string `xml:"Location,attr"`
}

// parseMetadata checks that data is SAML 2.0 metadata of exactly one identity provider that sign-in
// can use, and returns its entity id. Errors say what is wrong in words an administrator can act on.
func parseMetadata(data []byte) (entityID string, err error) {
	root, err := checkXMLShape(data)
	if err != nil {
		return "", err
	}
	if root.Space != nsMetadata {
		return "", errors.New("the document is not SAML 2.0 metadata (no EntityDescriptor in the metadata namespace)")
	}
	var ed entityDescriptor
	switch root.Local {
	case "EntityDescriptor":
		if err := xml.Unmarshal(data, &ed); err != nil {
			return "", fmt.Errorf("not readable: %v", err)
		}
	case "EntitiesDescriptor":
		var all entitiesDescriptor
		if err := xml.Unmarshal(data, &all); err != nil {
			return "", fmt.Errorf("not readable: %v", err)
		}
		var idps []entityDescriptor
		for _, e := range all.Entities {
			if len(e.IDPs) > 0 {
				idps = append(idps, e)
			}
		}
		if len(idps) != 1 {
			return "", fmt.Errorf("the document describes %d identity providers, want exactly one", len(idps))
		}
		ed = idps[0]
	default:
		return "", fmt.Errorf("the root element is %s, want EntityDescriptor", root.Local)
	}
	return ed.check()
}

// check applies the rules sign-in depends on: an entity id, a SAML 2.0 identity provider role with
// a sign-in endpoint, and at least one signing certificate, every certificate well-formed.
func (ed entityDescriptor) check() (string, error) {
	id := strings.TrimSpace(ed.EntityID)
	if id == "" {
		return "", errors.New("the EntityDescriptor has no entityID")
	}
	if utf8.RuneCountInString(id) > maxEntityLen {
		return "", fmt.Errorf("the entityID is longer than %d characters", maxEntityLen)
	}
	if len(ed.IDPs) == 0 {
		return "", errors.New("the entity has no IDPSSODescriptor (it is not an identity provider)")
	}
	var idp *idpDescriptor
	for i := range ed.IDPs {
		if strings.Contains(" "+ed.IDPs[i].Protocols+" ", " "+nsProtocol+" ") {
			idp = &ed.IDPs[i]
			break
		}
	}
	if idp == nil {
		return "", errors.New("the IDPSSODescriptor does not support the SAML 2.0 protocol")
	}
	if !idp.hasSignOnEndpoint() {
		return "", errors.New("the IDPSSODescriptor has no SingleSignOnService with a binding and an absolute http(s) location")
	}
	signing := 0
	for _, k := range idp.Keys {
		for _, c := range k.Certs {
			if err := checkCertificate(c); err != nil {
				return "", err
			}
			if k.Use == "" || k.Use == "signing" {
				signing++
			}
		}
	}
	if signing == 0 {
		return "", errors.New("the IDPSSODescriptor has no signing certificate (KeyDescriptor with an X509Certificate)")
	}
	return id, nil
}

func (idp *idpDescriptor) hasSignOnEndpoint() bool {
	for _, e := range idp.SSO {
		u, err := url.Parse(strings.TrimSpace(e.Location))
		if strings.TrimSpace(e.Binding) != "" && err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
			return true
		}
	}
	return false
}

// checkCertificate parses the base64 DER of an X509Certificate element, which may be wrapped over
// several lines.
func checkCertificate(b64 string) error {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, b64)
	der, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return errors.New("an X509Certificate is not valid base64")
	}
	if _, err := x509.ParseCertificate(der); err != nil {
		return fmt.Errorf("an X509Certificate does not parse: %v", err)
	}
	return nil
}

// checkXMLShape reads the whole document once before it is unmarshalled: it must be well-formed, have
// one root element, nest no deeper than maxXMLDepth and declare no document type. encoding/xml never
// expands entities, but refusing DOCTYPE outright means no entity declaration ever reaches a later
// consumer of the stored document either.
func checkXMLShape(data []byte) (root xml.Name, err error) {
	// The decoder does not check the text of comments and processing instructions, and PostgreSQL
	// stores neither invalid UTF-8 nor NUL in text, so both are refused here for the whole document.
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return xml.Name{}, errors.New("the document is not valid UTF-8 text")
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return xml.Name{}, fmt.Errorf("not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 && root.Local != "" {
				return xml.Name{}, errors.New("the document has more than one root element")
			}
			if depth == 0 {
				root = t.Name
			}
			depth++
			if depth > maxXMLDepth {
				return xml.Name{}, fmt.Errorf("elements nest deeper than %d levels", maxXMLDepth)
			}
		case xml.EndElement:
			depth--
		case xml.Directive:
			return xml.Name{}, errors.New("document type declarations (DOCTYPE) are not allowed")
		}
	}
	if root.Local == "" {
		return xml.Name{}, errors.New("the document is empty")
	}
	return root, nil
}
