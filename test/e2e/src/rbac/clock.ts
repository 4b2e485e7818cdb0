// The clock of one write case, shared by the controller and its scene: the remediation timeout (at
// least 100 s, a CRD rule) is passed by moving this clock forward, not by waiting for it. Every
// other controller, and the list/watch suite, runs on the real clock, as main.ts does.
export class SceneClock {
  #offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.#offsetMs);
  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}
