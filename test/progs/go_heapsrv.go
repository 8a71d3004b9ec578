// go_heapsrv.go - a Go service as the Go heap seed uses one: net/http/pprof
// on 127.0.0.1 with a port the kernel picks (printed on stdout), every
// allocation sampled (MemProfileRate 1), 100 blocks of 10000 bytes held by
// main.holdAtStart (nothing else allocated there), 50 of 4096 made and
// dropped by main.churn, and with -grow
// main.growSlowly keeping 64 KiB more every 100 ms (a GC after each, so the
// profile moves). Without -grow the GC is off after the start: the heap
// profile (as of the last GC) stays the same from one fetch to the next.
// /frozen and /frozen1 serve one heap profile taken at start (proto,
// debug=1) unchanged, so two clients read the same bytes. With -tls FILE it
// serves HTTPS with a self-signed certificate for 127.0.0.1 made at start,
// written to FILE (PEM) for the client to trust.
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

var (
	held  [100][]byte // arrays, not appends: no slice growth in the profile
	grown [8192][]byte
	ngrow int
	sink  []byte
)

//go:noinline
func holdAtStart() {
	for i := range held {
		held[i] = make([]byte, 10000)
	}
}

// Garbage: 50 blocks of 4096 B made and dropped before the start's GC,
// so the profile's allocated and in-use figures differ.
//
//go:noinline
func churn() {
	for i := 0; i < 50; i++ {
		sink = make([]byte, 4096)
	}
	sink = nil
}

//go:noinline
func growSlowly() {
	if ngrow < len(grown) {
		grown[ngrow] = make([]byte, 64<<10)
		ngrow++
	}
}

func snapshot(debug int) []byte {
	var b bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&b, debug); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return b.Bytes()
}

// selfSigned makes a key and a certificate for 127.0.0.1 and writes the
// certificate to file.
func selfSigned(file string) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpl := x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "go_heapsrv"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err == nil {
		err = os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func main() {
	runtime.MemProfileRate = 1
	grow := flag.Bool("grow", false, "keep 64 KiB more every 100 ms")
	certFile := flag.String("tls", "", "serve HTTPS, the certificate written to this file")
	flag.Parse()
	holdAtStart()
	churn()
	runtime.GC()
	frozen, frozen1 := snapshot(0), snapshot(1)
	http.HandleFunc("/frozen", func(w http.ResponseWriter, r *http.Request) { w.Write(frozen) })
	http.HandleFunc("/frozen1", func(w http.ResponseWriter, r *http.Request) { w.Write(frozen1) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *certFile != "" {
		// Made before the port is printed: the client reads the file once it sees the port.
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{selfSigned(*certFile)}})
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	if !*grow {
		debug.SetGCPercent(-1)
	} else {
		go func() {
			for {
				time.Sleep(100 * time.Millisecond)
				growSlowly()
				runtime.GC()
			}
		}()
	}
	http.Serve(ln, nil)
}
