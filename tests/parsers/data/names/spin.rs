use std::collections::HashMap;
#[inline(never)]
fn work(m: &mut HashMap<u64, Vec<u64>>, i: u64) { m.entry(i % 1000).or_insert_with(Vec::new).push(i); if m.len() > 900 { m.clear(); } }
fn main() { let mut m = HashMap::new(); let t = std::time::Instant::now(); let mut i = 0u64; while t.elapsed().as_millis() < 3000 { work(&mut m, i); i += 1; } println!("{}", m.len()); }
