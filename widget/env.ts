/**
 * Runs a challenge's environment program (src/captcha/env-proof.ts has the table of
 * opcodes) in the page: real layout in a hidden shadow root, so the page's own CSS cannot
 * change the measurements. Returns the mixed 32-bit result as a decimal string.
 */
export interface EnvProgram {
  seed: number;
  ops: number[][];
}

export function runEnv(program: EnvProgram): string {
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none';
  const root = host.attachShadow({ mode: 'open' });
  const stage = document.createElement('div');
  stage.style.cssText = 'all:initial;display:block;position:absolute;left:0;top:0;width:max-content';
  root.append(stage);
  (document.body ?? document.documentElement).append(host);
  const div = (css: string) => {
    const el = document.createElement('div');
    el.style.cssText = `all:initial;display:block;box-sizing:content-box;margin:0;padding:0;border:0 solid;${css}`;
    stage.append(el);
    return el;
  };
  let acc = program.seed >>> 0;
  try {
    for (const op of program.ops) {
      const [code, a = 0, b = 0, c = 0] = op;
      let value = 0;
      if (code === 0) value = div(`width:${a}px;padding:${b}px;border-width:${c}px`).offsetWidth;
      else if (code === 1) value = div(`font-size:${a}px;width:${b}em`).offsetWidth;
      else if (code === 2) {
        const row = div(`display:flex;width:${a * b}px`);
        for (let k = 0; k < b; k++) {
          const cell = document.createElement('div');
          cell.style.cssText = 'all:initial;display:block;flex:1 1 0;min-width:0;height:1px';
          row.append(cell);
        }
        value = (row.firstElementChild as HTMLElement).offsetWidth;
      } else if (code === 3) {
        const el = div('');
        el.style.color = `#${[a, b, c].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
        const m = getComputedStyle(el).color.match(/\d+/g);
        value = m && m.length >= 3 ? Number(m[0]) * 65536 + Number(m[1]) * 256 + Number(m[2]) : -1;
      } else if (code === 4) {
        const el = div('');
        el.innerHTML = `<b>${'<i></i>'.repeat(a)}</b>`;
        value = el.querySelectorAll('b > i').length;
      } else if (code === 5) {
        value = div(
          `display:grid;width:max-content;grid-template-columns:repeat(${a},${b}px);column-gap:${c}px;height:1px`,
        ).offsetWidth;
      }
      acc = Math.imul(acc ^ ((value + op[op.length - 1]) >>> 0), 0x01000193) >>> 0;
    }
  } finally {
    host.remove();
  }
  return String(acc);
}
