// bench/audio: a 16th-note drum pattern with 8 layers, made from
// synthesizers and noise only (no samples), so it plays offline.
setcpm(130/4)

// kick: a sine with a fast pitch drop
$: note("c1").struct("x ~ ~ x ~ ~ x ~ x ~ ~ x ~ ~ x ~")
  .s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1)

// closed hats: white noise, every 16th, accented
$: s("white*16").decay(.04).sustain(0).hpf(8000).gain("[.3 .15]*8")

// open hats on the off-beats
$: s("[~ white]*8").decay(.12).sustain(0).hpf(6000).gain(.15)

// snare: pink noise
$: s("~ ~ ~ ~ pink ~ ~ ~ ~ ~ ~ ~ pink ~ ~ pink").decay(.15).sustain(0)
  .hpf(1200).gain(.45)

// snare body: a short triangle
$: note("g3").struct("~ ~ ~ ~ x ~ ~ x ~ ~ ~ ~ x ~ ~ x")
  .s("triangle").penv(7).pdecay(.03).decay(.08).sustain(0).gain(.35)

// toms: triangles with a pitch drop
$: note("[a2 ~ ~ e2 ~ ~ c2 ~]*2").s("triangle")
  .penv(12).pdecay(.1).decay(.2).sustain(0).gain(.4)

// clicks: very short squares every 16th
$: note("c6*16").s("square").decay(.01).sustain(0).hpf(3000)
  .gain(perlin.range(.04, .12))

// shaker: band-passed brown noise every 16th
$: s("brown*16").decay(.03).sustain(0).bpf(3000).gain("[.2 .08 .14 .08]*4")
