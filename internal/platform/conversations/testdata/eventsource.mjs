// A stock EventSource client (the eventsource package, which follows the browser's EventSource
// semantics) reads one chat stream: it POSTs the message through its fetch hook, prints every event
// as a JSON line, and keeps the connection after done, as a browser would, so that its reconnection
// (with Last-Event-ID) is seen; the server's 204 must close it for good.
import { EventSource } from 'eventsource'

const [url, token, body] = process.argv.slice(2)
const seen = []
const es = new EventSource(url, {
  fetch: (input, init) => fetch(input, {
    ...init, method: 'POST', body,
    headers: { ...init.headers, Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
  }),
})
for (const name of ['message', 'status', 'action', 'workflow_update', 'transition_to_build', 'reasoning', 'error', 'done']) {
  es.addEventListener(name, (e) => {
    if (e.data === undefined) return // EventSource's own error events (a reconnection) carry no data
    seen.push({ event: e.type, id: e.lastEventId, data: JSON.parse(e.data) })
    console.log(JSON.stringify({ event: e.type, id: e.lastEventId }))
  })
}
es.onerror = () => {
  if (es.readyState === EventSource.CLOSED) {
    console.log(JSON.stringify({ closed: true, events: seen.length }))
    process.exit(0)
  }
}
setTimeout(() => { console.log(JSON.stringify({ timeout: true })); process.exit(1) }, 20000)
