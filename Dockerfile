# Build stage: a static Strata binary.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/strata ./cmd/strata

# Runtime stage: a small image running as a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/strata /usr/local/bin/strata
USER nonroot:nonroot
VOLUME /data
EXPOSE 6380
# Clients arrive through Docker's network, not the loopback interface: protected mode would refuse
# them all while no password is set. Set one (--requirepass, or an aclfile) when exposing the port.
ENTRYPOINT ["/usr/local/bin/strata", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data", "--metrics-addr", "0.0.0.0:9121"]
